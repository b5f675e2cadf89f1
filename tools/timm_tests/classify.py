"""Sort the damcha_vit_* models into timm's own model lists in the downloaded tests/test_models.py, as timm sorts its
vit_* models; timm keeps these lists (which models each test collects) in the test file itself.

- NON_STD_FILTERS: their features are tokens (B, N, D), not (B, C, H, W) maps with a pool_size, like timm's 'vit_*';
  timm checks such models with test_model_default_cfgs_non_std (test_model_default_cfgs and
  test_model_forward_features assume spatial maps).
- FEAT_INTER_FILTERS (a list of the modules that registered the models): they are timm's VisionTransformer, with its
  forward_intermediates and the 'getter' features_only wrapper, registered from the module damcha.integrations.timm,
  whose last name timm records ('timm'); timm lists its own 'vision_transformer' there.
- EXCLUDE_JIT_FILTERS: they cannot be compiled by TorchScript (the book's layers validate their input in Python and
  share the generator through a forward pre-hook; chapter 13 says why), as timm excludes its models that cannot be.

One block is inserted before the first line after those lists; it must match once, so a timm release that moves
them stops this script instead of running a different selection."""
import sys
from pathlib import Path

ANCHOR = "\nTARGET_FWD_SIZE = MAX_FWD_SIZE = 384\n"
BLOCK = """
# --- damcha (tools/timm_tests/classify.py): damcha_vit_* sorted as timm sorts its vit_* models ---
NON_STD_FILTERS += ['damcha_vit_*']     # token features (B, N, D), as 'vit_*'
FEAT_INTER_FILTERS += ['timm']          # registered from damcha.integrations.timm: forward_intermediates, 'getter'
EXCLUDE_JIT_FILTERS += ['damcha_vit_*']  # not scriptable: see chapter 13 of the damcha book
# --- end damcha ---
"""

path = Path(sys.argv[1])
text = path.read_text()

def at(s: str) -> int:
    "Where `s` is in the test file; it must be there exactly once."
    if text.count(s) != 1:
        sys.exit(f"{path}: expected {s.strip()!r} once, found it {text.count(s)} times: timm's test file changed, "
                 f"update {__file__}")
    return text.index(s)

for name in ("NON_STD_FILTERS = [", "FEAT_INTER_FILTERS = [", "EXCLUDE_JIT_FILTERS = ["):
    if at(name) > at(ANCHOR):
        sys.exit(f"{path}: {name!r} is no longer defined before {ANCHOR.strip()!r}: update {__file__}")
if at("EXCLUDE_FEAT_FILTERS = NON_STD_FILTERS[:]") < at(ANCHOR):
    sys.exit(f"{path}: EXCLUDE_FEAT_FILTERS is copied before {ANCHOR.strip()!r}: update {__file__}")
path.write_text(text.replace(ANCHOR, BLOCK + ANCHOR))
print(f"{path}: damcha_vit_* added to NON_STD_FILTERS and EXCLUDE_JIT_FILTERS, module 'timm' to FEAT_INTER_FILTERS")
