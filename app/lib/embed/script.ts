// The script served at /embed.js: the one-line embed (<script src=".../embed.js" data-form="contact">)
// puts a frame of the form's page (/f/:id?embed=1) where the tag is and sizes it to the height the page
// reports, trusting only messages from Gatepost's origin and from its own frame (docs/decisions/076).
// Plain ES5-era JavaScript: it runs on whatever site it is pasted into, before or without a bundler.

/** The script's text for a Gatepost served at `origin` (an exact origin). */
export function embedScript(origin: string): string {
  return `(function () {
  "use strict";
  var GATEPOST = ${JSON.stringify(origin)};
  var script = document.currentScript;
  if (!script || !script.parentNode) return;
  var form = script.getAttribute("data-form") || "";
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(form)) return;
  var src = new URL("/f/" + form, GATEPOST);
  src.searchParams.set("embed", "1");
  src.searchParams.set("parent", window.location.origin);
  var lang = script.getAttribute("data-lang");
  if (lang && /^[a-z]{2}$/.test(lang)) src.searchParams.set("lang", lang);
  // The page's own query goes on, so fields that prefill (utm_source, …) fill from it; bounded in size.
  var passed = 0;
  new URLSearchParams(window.location.search).forEach(function (value, name) {
    if (passed >= 50 || name.length > 64 || value.length > 2000 || src.searchParams.has(name)) return;
    src.searchParams.append(name, value);
    passed += 1;
  });
  var frame = document.createElement("iframe");
  frame.src = src.href;
  frame.title = script.getAttribute("data-title") || form;
  frame.style.cssText = "display:block;width:100%;height:640px;border:0;overflow:hidden";
  script.parentNode.insertBefore(frame, script.nextSibling);
  window.addEventListener("message", function (event) {
    if (event.origin !== GATEPOST || event.source !== frame.contentWindow) return;
    var data = event.data;
    if (!data || data.type !== "gatepost:height" || typeof data.height !== "number" || !isFinite(data.height)) return;
    frame.style.height = Math.min(20000, Math.max(80, Math.ceil(data.height))) + "px";
  });
})();
`;
}
