// dpteach web book (issue 21, D6): keep every figure's text legible on any screen.
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
  function fit(img) {
    var textPx = parseFloat(img.dataset.minTextPx || styleTextPx());
    if (!img.naturalWidth || !(textPx > 0)) return;
    var needed = Math.ceil(img.naturalWidth * LEGIBLE_PX / textPx);
    img.style.minWidth = Math.min(img.naturalWidth, needed) + "px";
    img.style.maxWidth = img.naturalWidth > needed ? "100%" : "none";
  }
  function init() {
    var images = document.querySelectorAll(".cell_output img, .dpteach-frames-images img");
    images.forEach(function (img) {
      if (img.complete) fit(img); else img.addEventListener("load", function () { fit(img); });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
