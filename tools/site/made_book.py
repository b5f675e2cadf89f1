"""Made-up notebooks for the tests of the website (tools/site) and the PDF (tools/pdf): small books whose every cell
is written by the test."""


def notebook(*cells) -> dict:
    "An nbformat-4 notebook of `(kind, source[, outputs])` cells; code cells get their outputs, or none."
    out = []
    for kind, src, *outputs in cells:
        c = {"cell_type": kind, "metadata": {}, "source": src}
        if kind == "code":
            c.update(outputs=outputs[0] if outputs else [], execution_count=None)
        out.append(c)
    return {"cells": out, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                      "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
