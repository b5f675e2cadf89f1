"""Sphinx configuration for the book's website (`python tools/site/build.py` passes `-c tools/site`).

The source folder is `_proc/`, the notebooks as `build.py` processed them; nothing is executed."""
import configparser
from pathlib import Path

_cfg = configparser.ConfigParser(delimiters=["="])
_cfg.read(Path(__file__).resolve().parents[2] / "settings.ini")
_s = _cfg["DEFAULT"]

project = _s["title"]
author = _s["author"]
copyright = _s["copyright"]
release = version = _s["version"]

extensions = ["myst_nb", "sphinx-mathjax-offline"]    # the second copies MathJax 3 into _static/ and points at it
root_doc = "index"
exclude_patterns = ["_files/**", "_build/**", "jupyter_execute/**", "**/.ipynb_checkpoints"]

nb_execution_mode = "off"                             # the committed outputs, as they are
nb_render_markdown_format = "myst"                    # tables cells print as markdown may hold $math$
nb_merge_streams = True
nb_code_prompt_show = "Source"                        # an `#| export` cell's code, folded under its API entry
nb_code_prompt_hide = "Hide the source"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 4                              # `page.ipynb#name` links to a show_doc entry
myst_dmath_double_inline = True
suppress_warnings = ["myst.header"]                   # show_doc's entries are `###` headings under any level

html_theme = "furo"
html_title = f"{project} {version}"
html_static_path = [str(Path(__file__).resolve().parent / "static")]
html_css_files = ["damcha.css"]
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
pygments_style = "default"


def _search_math(app, pagename, templatename, context, doctree):
    if pagename == "search":
        app.add_js_file("search-math.js")


def setup(app):
    app.connect("html-page-context", _search_math)
