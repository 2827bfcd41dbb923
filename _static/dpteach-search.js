// dpteach web book (issue 21, D12): search snippets without raw TeX.
// Sphinx's search builds each result's snippet from the page's HTML source, where the maths is
// still TeX ("Let \(M\) be \((\varepsilon, \delta)\)-DP"): MathJax typesets it only in the page
// itself. This wraps searchtools.js's Search.htmlToText to drop the math delimiters, spell the
// commonest commands as the characters they print and strip every other command's backslash and
// braces ("\max_{D \sim D'} \|f(D)\|_1" reads "max_D ~ D' ‖f(D)‖_1"). The page text itself is
// untouched. tests/browser/test_search.py reads the snippets in Chromium.
(function () {
  "use strict";
  var SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", zeta: "ζ", eta: "η",
    theta: "θ", vartheta: "θ", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π", rho: "ρ",
    sigma: "σ", tau: "τ", phi: "φ", varphi: "φ", chi: "χ", psi: "ψ", omega: "ω",
    Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Xi: "Ξ", Pi: "Π", Sigma: "Σ", Phi: "Φ", Psi: "Ψ",
    Omega: "Ω", le: "≤", leq: "≤", ge: "≥", geq: "≥", ll: "≪", gg: "≫", in: "∈", notin: "∉",
    cdot: "·", times: "×", infty: "∞", approx: "≈", ne: "≠", neq: "≠", sim: "~", propto: "∝",
    to: "→", mapsto: "↦", rightarrow: "→", leftarrow: "←", Rightarrow: "⇒", iff: "⇔",
    sqrt: "√", ell: "ℓ", pm: "±", mp: "∓", sum: "Σ", prod: "Π", int: "∫", partial: "∂", nabla: "∇",
    cup: "∪", cap: "∩", subset: "⊂", subseteq: "⊆", setminus: "∖", emptyset: "∅", forall: "∀",
    exists: "∃", neg: "¬", wedge: "∧", vee: "∨", mid: "|", langle: "⟨", rangle: "⟩",
    lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉", ldots: "…", cdots: "⋯", dots: "…",
    quad: " ", qquad: " ", top: "ᵀ", circ: "∘", star: "⋆", dagger: "†"
  };
  var BLACKBOARD = { R: "ℝ", N: "ℕ", Z: "ℤ", Q: "ℚ", E: "𝔼", P: "ℙ", 1: "𝟙" };
  // Commands that only size, space or style their argument: dropped, the argument kept ("\mathcal H" -> "H").
  var SILENT = new RegExp("^(left|right|big|Big|bigg|Bigg|bigl|bigr|Bigl|Bigr|biggl|biggr|displaystyle|textstyle|" +
    "limits|nolimits|mathrm|mathbf|mathit|mathsf|mathcal|mathscr|mathfrak|operatorname|text|textbf|textit|" +
    "widetilde|tilde|widehat|hat|bar|overline|boldsymbol|mathbb)$");
  function plain(text) {
    return text
      .replace(/\\[()[\]]/g, "")                                   // \( \) \[ \] delimiters
      .replace(/\\mathbb\{?([A-Z1])\}?/g, function (all, c) { return BLACKBOARD[c] || c; })
      .replace(/\\frac\{([^{}]*)\}\{([^{}]*)\}/g, "($1)/($2)")
      .replace(/\\\|/g, "‖")
      .replace(/\\([{}%$#&_ ])/g, "$1")                             // \{ \} \% ... print the character
      .replace(/\\[,;:!>]/g, " ")                                    // thin and medium spaces
      .replace(/\\([A-Za-z]+)/g, function (all, name) {
        if (SYMBOLS.hasOwnProperty(name)) return SYMBOLS[name];
        return SILENT.test(name) ? "" : name;                      // \max -> max, \mathrm{OPT} -> {OPT}
      })
      .replace(/[{}]/g, "")
      .replace(/\\/g, "");                                           // a stray backslash (a line break \\)
  }
  function install() {
    if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;  // not the search page
    var toText = Search.htmlToText;
    Search.htmlToText = function (html, anchor) { return plain(toText(html, anchor)); };
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", install);
  else install();
})();
