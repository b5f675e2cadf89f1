// Sphinx's search page shows each hit's text as plain text, where the book's math is still TeX (\( ... \)):
// load the site's own MathJax and typeset the results as they arrive.
window.MathJax = {startup: {typeset: false}, options: {processHtmlClass: "search"}};
(function () {
  const s = document.createElement("script");
  s.src = (document.documentElement.dataset.content_root || "") + "_static/mathjax/tex-chtml.js";
  s.defer = true;
  document.head.appendChild(s);
  let busy = null;
  const typeset = () => {
    const box = document.getElementById("search-results");
    if (!box || !window.MathJax || !MathJax.typesetPromise) return;
    busy = (busy || Promise.resolve()).then(() => MathJax.typesetPromise([box])).catch(() => {});
  };
  document.addEventListener("DOMContentLoaded", () => {
    const box = document.getElementById("search-results");
    if (box) new MutationObserver(() => setTimeout(typeset, 50)).observe(box, {childList: true, subtree: true});
  });
  s.addEventListener("load", () => MathJax.startup.promise.then(typeset));
})();
