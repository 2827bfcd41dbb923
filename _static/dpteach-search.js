// dpteach web book (issue 21, D12): search snippets without raw TeX.
// Sphinx's search builds each result's snippet from the page's HTML source, where the maths is
// still TeX ("Let \(M\) be \((\varepsilon, \delta)\)-DP"): MathJax typesets it only in the page
// itself. This wraps searchtools.js's Search.htmlToText to drop the math delimiters and spell the
// commonest commands as the characters they print. The page text itself is untouched.
(function () {
  "use strict";
  var SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", eta: "η",
    theta: "θ", lambda: "λ", mu: "μ", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ",
    Delta: "Δ", le: "≤", leq: "≤", ge: "≥", geq: "≥", in: "∈", cdot: "·", times: "×",
    infty: "∞", approx: "≈", ne: "≠", to: "→", sqrt: "√", ell: "ℓ", Pr: "Pr", log: "log"
  };
  function plain(text) {
    return text
      .replace(/\\[()[\]]/g, "")
      .replace(/\\([A-Za-z]+)/g, function (all, name) { return SYMBOLS[name] || all; });
  }
  function install() {
    if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;  // not the search page
    var toText = Search.htmlToText;
    Search.htmlToText = function (html, anchor) { return plain(toText(html, anchor)); };
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", install);
  else install();
})();
