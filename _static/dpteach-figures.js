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
  function fit(img) {
    var textPx = parseFloat(img.dataset.minTextPx || styleTextPx());
    if (!img.naturalWidth || !(textPx > 0)) return;
    var needed = Math.ceil(img.naturalWidth * LEGIBLE_PX / textPx);
    img.style.minWidth = Math.min(img.naturalWidth, needed) + "px";
    img.style.maxWidth = img.naturalWidth > needed ? "100%" : "none";
    var box = scrollBox(img);
    label(box, img);
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
    var images = document.querySelectorAll(".cell_output img, .dpteach-frames-images img");
    images.forEach(function (img) {
      if (img.complete) fit(img); else img.addEventListener("load", function () { fit(img); });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
