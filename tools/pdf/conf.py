"""Sphinx configuration for the book as a PDF (`python tools/pdf/build.py` passes `-c tools/pdf`).

The website's configuration (`tools/site/conf.py`: MyST-NB with execution off, the same markdown extensions), less
its HTML settings, with Sphinx's LaTeX builder set up for XeLaTeX: fonts that have the glyphs the book uses, chapters
titled by their notebook's number rather than numbered by LaTeX, long code lines wrapped."""
import json, re, runpy
from pathlib import Path
from docutils import nodes
from sphinx.writers.latex import LaTeXTranslator

_site = runpy.run_path(str(Path(__file__).resolve().parents[1] / "site" / "conf.py"))
for _k, _v in _site.items():
    if not _k.startswith(("_", "html_")) and _k not in ("setup", "extensions") and not callable(_v):
        globals()[_k] = _v

extensions = ["myst_nb"]                               # no MathJax: LaTeX typesets the math itself
root_doc = "_book"                                     # written by build.py: a toctree of all notebooks, index first

latex_engine = "xelatex"                               # Unicode input, system fonts; LuaLaTeX took 3x longer here
latex_documents = [(root_doc, "damcha.tex", project, author, "manual")]
latex_use_xindy = False                                # no index: xindy is one more Debian package
latex_show_urls = "no"
latex_table_style = ["booktabs"]
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "10pt",
    # FreeSerif and FreeSans (Sphinx's own choice for XeLaTeX, Debian's fonts-freefont-otf) have Latin, Greek,
    # arrows, math operators and box drawing; so has DejaVu Sans Mono, for code and outputs. Chinese characters
    # (chapters 08d and 08e) come from WenQuanYi Micro Hei: `_cjk` below defines each one the notebooks hold.
    "fontpkg": r"""
\setmainfont{FreeSerif}[Extension=.otf, UprightFont=*, ItalicFont=*Italic, BoldFont=*Bold,
  BoldItalicFont=*BoldItalic]
\setsansfont{FreeSans}[Extension=.otf, UprightFont=*, ItalicFont=*Oblique, BoldFont=*Bold,
  BoldItalicFont=*BoldOblique]
\setmonofont{DejaVu Sans Mono}[Scale=0.85]
\newfontfamily\damchaCJK{WenQuanYi Micro Hei Mono}[Scale=0.85]
""",
    # The notebooks' code is written to 120 columns: in 8pt (and DejaVu at 0.85, its x-height is large) on a text
    # 0.8in from the paper's edges, about 112 fit; longer code lines and outputs wrap, at a space or punctuation
    # if there is one and anywhere if not, with an arrow at the start of the continued line.
    "fvset": r"\fvset{fontsize=\footnotesize}",
    "sphinxsetup": "hmargin={0.8in,0.8in}, verbatimwrapslines=true, verbatimforcewraps=true, "
                   "verbatimhintsturnover=false",
    # the chapters carry their notebook's number in their title (`00 The cross-head metric`): LaTeX's own
    # numbering (Chapter 1 for the README's first section) would disagree with the prose's "chapter 05"
    # a display equation wider than the text (the markdown's `$$...$$` fit a browser's width) is scaled to fit;
    "preamble": r"""
\setcounter{secnumdepth}{-1}
\usepackage{newunicodechar}
% tables: a smaller size (some have eight columns), no column squeezed below 60pt (unless all its text is narrower),
% ragged right rather than justified (Sphinx sets each cell in a varwidth); inline code may break after an underscore
% or a hyphen (`shakespeare-char` in a narrow column ran into the next one)
\AtBeginEnvironment{tabulary}{\small}
\AtBeginEnvironment{longtable}{\small}
\AtBeginEnvironment{tabular}{\small}
\setlength{\tymin}{60pt}
\makeatletter
\AtBeginEnvironment{varwidth}{\let\damcha@parboxrestore\@parboxrestore
  \def\@parboxrestore{\damcha@parboxrestore\raggedright}}
\makeatother
\let\damchaorigupquote\sphinxupquote
\let\damchaunderscore\_
\protected\def\sphinxupquote#1{\damchaorigupquote{\def\_{\damchaunderscore\allowbreak}#1}}
\def\damchahyphen#1{-\allowbreak}
\renewcommand*{\sphinxhyphenininlineliteral}{\damchahyphen}
% a heading's math in the PDF's bookmarks (which hold plain text): `$N \times N$` as N × N, not N N
\pdfstringdefDisableCommands{\def\times{×}\def\le{≤}\def\leq{≤}\def\ge{≥}\def\geq{≥}\def\to{→}\def\cdot{·}}
\newsavebox\damchamathbox
\newcommand\damchafitmath[1]{\sbox\damchamathbox{$\displaystyle\begin{aligned}#1\end{aligned}$}%
  \ifdim\wd\damchamathbox>\linewidth\resizebox{\linewidth}{!}{\usebox\damchamathbox}\else
  \usebox\damchamathbox\fi}
""",
    "extraclassoptions": "openany,oneside",           # read on a screen: no blank pages before chapters
    "printindex": "",
}

_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def _cjk(app, config):
    "One `\\newunicodechar` per CJK character in the notebooks: set in WenQuanYi, all else in the Western fonts."
    chars = set()
    for nb in Path(app.srcdir).glob("*.ipynb"):
        text = json.dumps(json.loads(nb.read_text(encoding="utf-8")), ensure_ascii=False)
        chars |= set(_CJK.findall(text))
    defs = "".join(f'\\newunicodechar{{{c}}}{{{{\\damchaCJK\\char"{ord(c):X}\\relax}}}}\n' for c in sorted(chars))
    config.latex_elements = {**config.latex_elements,
                             "preamble": config.latex_elements.get("preamble", "") + defs}


class _Translator(LaTeXTranslator):
    def visit_math_block(self, node):
        "An unnumbered display equation as `\\[\\damchafitmath{...}\\]`; others as Sphinx writes them."
        text = node.astext()
        if node.get("label") or node.get("no-wrap", node.get("nowrap")) or self.config.math_number_all \
                or len([p for p in text.split("\n\n") if p.strip()]) != 1:
            return super().visit_math_block(node)
        self.body.append("\n\\[\\damchafitmath{%s}\\]\n" % text.strip())
        raise nodes.SkipNode


def setup(app):
    app.connect("config-inited", _cjk)
    app.set_translator("latex", _Translator)
