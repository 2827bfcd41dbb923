// dpteach web book (issue 21, D6): keep every figure's text legible on any screen, and (N4) show
// that a figure or an equation wider than the column scrolls sideways.
// A figure image shrunk to a narrow column shrinks its text with it. Each figure gets a
// minimum displayed width at which its smallest text is LEGIBLE_PX CSS pixels:
//   displayed text px = natural text px * displayed width / natural width  >=  LEGIBLE_PX.
// The natural text size is the figure's own record (data-min-text-px, written by
// dpteach.widgets from the figure's artists), or else the book style's smallest size
// (dpteach.plotting.MIN_TEXT_PX, copied into the page by _ext/dpteach_web.py).
// Its container scrolls sideways (_static/dpteach.css) when that width exceeds the column.
(function () {
  "use strict";
  var LEGIBLE_PX = 9;
  function styleTextPx() {
    var meta = document.querySelector('meta[name="dpteach-min-text-px"]');
    return meta ? parseFloat(meta.content) : NaN;
  }
  // The box that scrolls sideways when the figure is wider than the column: the frame switcher's
  // image box, or a wrapper put around a plain notebook image.
  function scrollBox(img) {
    var box = img.closest(".dpteach-frames-images, .dpteach-figure-scroll");
    if (box) return box;
    box = document.createElement("div");
    box.className = "dpteach-figure-scroll";
    img.parentNode.insertBefore(box, img);
    box.appendChild(img);
    return box;
  }
  // A box that scrolls must be reachable by keyboard, and say what it holds (WCAG 2.1.1).
  function label(box, img) {
    if (box.scrollWidth > box.clientWidth + 1) {
      box.tabIndex = 0;
      box.setAttribute("role", "group");  // not a landmark: two figures may say the same
      box.setAttribute("aria-label", "Figure, scrolls sideways: " + (img.getAttribute("alt") || ""));
    } else {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
  }
  // N4: a box that scrolls sideways shows it: a shadow on each edge with more content beyond it, and
  // a small "scroll →" line under it. Without them a phone reader saw a cut figure (the right panel of
  // a two-panel figure, which the text discusses) or a cut equation, and nothing said there was more.
  // `frame` holds the box and its edge shadows (dpteach.css); the hint goes after the frame.
  function cue(box, frame) {
    if (!frame.classList.contains("dpteach-scroll-frame")) {
      frame.classList.add("dpteach-scroll-frame");
      var hint = document.createElement("div");
      hint.className = "dpteach-scroll-hint";
      hint.setAttribute("aria-hidden", "true");  // the box's aria-label says it scrolls
      hint.textContent = "scroll \u2192";
      frame.parentNode.insertBefore(hint, frame.nextSibling);
      box.addEventListener("scroll", function () { edges(box, frame); }, {passive: true});
      window.addEventListener("resize", function () { edges(box, frame); });
      // A box in a closed dropdown (a solution) has no width until it opens: measure it again then.
      if (window.ResizeObserver) new ResizeObserver(function () { edges(box, frame); }).observe(box);
    }
    edges(box, frame);
  }
  function edges(box, frame) {
    var more = box.scrollWidth - box.clientWidth;
    var scrolls = more > 1;
    frame.classList.toggle("dpteach-scrolls", scrolls);
    frame.classList.toggle("dpteach-more-left", scrolls && box.scrollLeft > 1);
    frame.classList.toggle("dpteach-more-right", scrolls && box.scrollLeft < more - 1);
  }
  // A figure's scroll box gets a frame of its own around it (a block as wide as the column).
  function figureFrame(box) {
    var frame = box.parentNode;
    if (frame && frame.classList.contains("dpteach-scroll-frame")) return frame;
    frame = document.createElement("div");
    box.parentNode.insertBefore(frame, box);
    frame.appendChild(box);
    return frame;
  }
  // Display equations: MathJax's mjx-container scrolls inside Sphinx's div.math, which is the frame.
  function cueEquation(math) {
    var frame = math.closest("div.math");
    if (frame && (math.scrollWidth > math.clientWidth + 1 || frame.classList.contains("dpteach-scroll-frame"))) {
      cue(math, frame);
      if (!math.hasAttribute("tabindex") && math.scrollWidth > math.clientWidth + 1) math.tabIndex = 0;
    }
  }
  function cueEquations() {
    document.querySelectorAll("div.math mjx-container[display=\"true\"]").forEach(function (math) {
      cueEquation(math);
      // An equation hidden at load (in a closed solution) overflows only once it is shown.
      if (window.ResizeObserver && !math.dataset.dpteachWatched) {
        math.dataset.dpteachWatched = "1";
        new ResizeObserver(function () { cueEquation(math); }).observe(math);
      }
    });
  }
  function fit(img) {
    var textPx = parseFloat(img.dataset.minTextPx || styleTextPx());
    if (!img.naturalWidth || !(textPx > 0)) return;
    var needed = Math.ceil(img.naturalWidth * LEGIBLE_PX / textPx);
    img.style.minWidth = Math.min(img.naturalWidth, needed) + "px";
    img.style.maxWidth = img.naturalWidth > needed ? "100%" : "none";
    var box = scrollBox(img);
    label(box, img);
    cue(box, figureFrame(box));
    window.addEventListener("resize", function () { label(box, img); });
  }
  // Tables that scroll sideways on a narrow screen (_static/dpteach.css) are reachable by keyboard too.
  function labelTables() {
    document.querySelectorAll("article table.table").forEach(function (table) {
      if (table.scrollWidth > table.clientWidth + 1) table.tabIndex = 0;
      else table.removeAttribute("tabindex");
    });
  }
  function init() {
    labelTables();
    window.addEventListener("resize", labelTables);
    // Equations are measured once MathJax has typeset them (it loads after this script).
    var typeset = function () {
      if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        MathJax.startup.promise.then(cueEquations);
      } else {
        cueEquations();
      }
    };
    if (document.readyState === "complete") typeset(); else window.addEventListener("load", typeset);
    window.addEventListener("resize", cueEquations);
    var images = document.querySelectorAll(".cell_output img, .dpteach-frames-images img");
    images.forEach(function (img) {
      if (img.complete) fit(img); else img.addEventListener("load", function () { fit(img); });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
