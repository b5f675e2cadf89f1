"""Loaded by pytest before it collects timm's tests/test_models.py: registers the damcha_vit_* models with timm."""
import timm
import damcha.integrations.timm  # noqa: F401  (timm.create_model and timm.list_models now know damcha_vit_*)

assert timm.list_models("damcha_vit_*"), "damcha.integrations.timm registered no models with timm"
assert "site-packages" in timm.__file__ or "dist-packages" in timm.__file__, f"timm from {timm.__file__}, not installed"
