"""transformers' common tests for `DamchaForCausalLM`, written for damcha in transformers' own convention.

Laid out as transformers lays out a model's tests (GPT-2's `tests/models/gpt2/test_modeling_gpt2.py` is the model
followed): a `ModelTester` builds a tiny configuration and inputs, and a test case mixes `ModelTesterMixin`,
`GenerationTesterMixin` and `ConfigTester`. tools/hf_tests/prepare.py places this file at
tests/models/damcha/test_modeling_damcha.py inside transformers' test tree; it runs there, not from the project.
`DamchaMhaModelTest` repeats every test with the baseline attention `mha` inside the same model, so a failure that
both share is in the integration, not in the attention. A skip says why, as transformers' own skips do.
Without a snapshot of transformers' generation tests (CI), `GenerationTesterMixin` is an empty stub and only the
source distribution's `ModelTesterMixin` and `ConfigTester` tests run, with the two damcha tests below.
"""
import tempfile
import unittest
from unittest import mock

from transformers import is_torch_available
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
from transformers.testing_utils import require_torch, torch_device

from ...generation.test_utils import GenerationTesterMixin
from ...test_configuration_common import ConfigTester
from ...test_modeling_common import ModelTesterMixin, ids_tensor, random_attention_mask

if is_torch_available():
    import torch

    from damcha.integrations.hf import DamchaConfig, DamchaForCausalLM
    from damcha.models import ATTENTIONS


class DamchaModelTester:
    "A tiny `DamchaConfig` and inputs for the common tests."
    def __init__(self, parent, batch_size=13, seq_length=7, is_training=True, use_input_mask=True, use_labels=True,
                 vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
                 max_position_embeddings=512, attention="damcha", pad_token_id=0, bos_token_id=1, eos_token_id=2):
        self.parent, self.batch_size, self.seq_length = parent, batch_size, seq_length
        self.is_training, self.use_input_mask, self.use_labels = is_training, use_input_mask, use_labels
        self.vocab_size, self.hidden_size, self.num_hidden_layers = vocab_size, hidden_size, num_hidden_layers
        self.num_attention_heads, self.intermediate_size = num_attention_heads, intermediate_size
        self.max_position_embeddings, self.attention = max_position_embeddings, attention
        self.pad_token_id, self.bos_token_id, self.eos_token_id = pad_token_id, bos_token_id, eos_token_id

    def get_config(self, **kwargs):
        args = dict(vocab_size=self.vocab_size, d_model=self.hidden_size, n_heads=self.num_attention_heads,
                    n_layers=self.num_hidden_layers, d_ff=self.intermediate_size,
                    max_len=self.max_position_embeddings, attention=self.attention, mlp_hidden=(32,),
                    pad_token_id=self.pad_token_id, bos_token_id=self.bos_token_id, eos_token_id=self.eos_token_id)
        args.update(kwargs)
        return DamchaConfig(**args)

    def prepare_config_and_inputs(self):
        input_ids = ids_tensor([self.batch_size, self.seq_length], self.vocab_size)
        input_mask = random_attention_mask([self.batch_size, self.seq_length]) if self.use_input_mask else None
        token_labels = ids_tensor([self.batch_size, self.seq_length], self.vocab_size) if self.use_labels else None
        return self.get_config(), input_ids, input_mask, token_labels

    def prepare_config_and_inputs_for_common(self):
        config, input_ids, input_mask, _ = self.prepare_config_and_inputs()
        return config, {"input_ids": input_ids, "attention_mask": input_mask}

    def create_and_check_lm_head_model(self, config, input_ids, input_mask, token_labels):
        model = DamchaForCausalLM(config).to(torch_device).eval()
        result = model(input_ids, attention_mask=input_mask, labels=token_labels)
        self.parent.assertEqual(result.logits.shape, (self.batch_size, self.seq_length, self.vocab_size))
        self.parent.assertEqual(result.loss.shape, ())
        self.parent.assertTrue(torch.isfinite(result.loss))


@require_torch
class DamchaModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (DamchaForCausalLM,) if is_torch_available() else ()
    pipeline_model_mapping = {}
    attention = "damcha"
    test_can_init_all_missing_weights_before_2023 = True       # damcha's initialisation is checked like new models'

    def setUp(self):
        self.model_tester = DamchaModelTester(self, attention=self.attention)
        self.config_tester = ConfigTester(self, config_class=DamchaConfig, d_model=37, attention=self.attention)

    def _prepare_for_class(self, inputs_dict, model_class, return_labels=False):
        # transformers adds causal-LM labels only for the models in its own lists: a registered model adds its own
        inputs_dict = super()._prepare_for_class(inputs_dict, model_class, return_labels=return_labels)
        if return_labels:
            inputs_dict["labels"] = torch.zeros((self.model_tester.batch_size, self.model_tester.seq_length),
                                                dtype=torch.long, device=torch_device)
        return inputs_dict

    def test_config(self):
        self.config_tester.run_common_tests()

    def test_lm_head_model(self):
        self.model_tester.create_and_check_lm_head_model(*self.model_tester.prepare_config_and_inputs())

    def test_causal_lm_loss_honors_shift_labels(self):
        # transformers runs this test for the causal-LM classes of its own mapping only: a registered model joins it
        common = getattr(super(), "test_causal_lm_loss_honors_shift_labels", None)
        if common is None:
            self.skipTest("these common tests have no shift-labels test")
        with mock.patch.dict(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, {"damcha": "DamchaForCausalLM"}):
            common()

    def test_batched_padded_generation_equals_one_by_one(self):
        # every attention the model takes: prompts of lengths 2..5, left- and right-padded, greedy, with and without
        # the cache, each row against its prompt generated alone
        for attention in ATTENTIONS:
            with self.subTest(attention=attention):
                config = self.model_tester.get_config(attention=attention)
                torch.manual_seed(0)
                model = DamchaForCausalLM(config).to(torch_device).eval()
                prompts = [ids_tensor([1, n], config.vocab_size - 3) + 3 for n in (5, 2, 4, 3)]
                alone = [model.generate(p, attention_mask=torch.ones_like(p), max_new_tokens=4, do_sample=False,
                                        pad_token_id=0)[0, p.shape[1]:] for p in prompts]
                T = max(p.shape[1] for p in prompts)
                for side in ("left", "right"):
                    ids = torch.zeros(len(prompts), T, dtype=torch.long, device=torch_device)
                    mask = torch.zeros_like(ids)
                    for b, p in enumerate(prompts):
                        n = p.shape[1]
                        cols = slice(T - n, T) if side == "left" else slice(0, n)
                        ids[b, cols], mask[b, cols] = p[0], 1
                    for use_cache in (True, False):
                        out = model.generate(ids, attention_mask=mask, max_new_tokens=4, do_sample=False,
                                             pad_token_id=0, use_cache=use_cache)[:, T:]
                        for b in range(len(prompts)):
                            self.assertEqual(out[b].tolist(), alone[b].tolist(), f"{side} padding, "
                                             f"use_cache={use_cache}, row {b}")

    def test_checkpoint_digest_detects_a_flipped_byte(self):
        # the project's promise, not transformers': save_pretrained records the weights' sha256 in the configuration
        config = self.model_tester.get_config()
        model = DamchaForCausalLM(config)
        with tempfile.TemporaryDirectory() as d:
            model.save_pretrained(d)
            DamchaForCausalLM.from_pretrained(d)                                          # intact: loads
            path = f"{d}/model.safetensors"
            data = bytearray(open(path, "rb").read())
            data[-5] ^= 0x01
            open(path, "wb").write(bytes(data))
            with self.assertRaisesRegex(ValueError, "sha256"):
                DamchaForCausalLM.from_pretrained(d)


@require_torch
class DamchaMhaModelTest(DamchaModelTest):
    "The same tests with multi-head attention inside `DamchaForCausalLM`: what both fail is the integration's."
    attention = "mha"
    test_batched_padded_generation_equals_one_by_one = None    # the damcha suite's runs every attention already
    test_checkpoint_digest_detects_a_flipped_byte = None
