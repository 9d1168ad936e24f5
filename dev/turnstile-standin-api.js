// Stand-in for https://challenges.cloudflare.com/turnstile/v0/api.js, served by turnstile-standin.mjs.
// It implements the window.turnstile calls react-turnstile uses, with the real callbacks, so the app's
// widget code runs unchanged, and the real script's implicit rendering: without ?render=explicit every
// `.cf-turnstile` element is rendered from its data-* attributes once the DOM is ready. Sitekeys follow Cloudflare's test keys: 1x passes, 2x always fails,
// 3x needs a click (an "interactive" challenge).
(function () {
  "use strict";
  var TOKEN_TTL_MS = Number("__TOKEN_TTL_MS__");
  // Per-page test switches: window.__TURNSTILE_STANDIN__ = { fail: true, ttlMs: 1500 } set before load.
  function options() {
    return window.__TURNSTILE_STANDIN__ || {};
  }
  var widgets = {};
  var order = [];
  var seq = 0;

  function b64url(text) {
    return btoa(unescape(encodeURIComponent(text)))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  }
  function call(fn) {
    if (typeof fn === "function") fn.apply(null, Array.prototype.slice.call(arguments, 1));
  }
  function find(ref) {
    if (ref === undefined || ref === null) return widgets[order[0]];
    if (typeof ref === "string" && widgets[ref]) return widgets[ref];
    var el = typeof ref === "string" ? document.querySelector(ref) : ref;
    for (var i = 0; i < order.length; i++) if (widgets[order[i]].container === el) return widgets[order[i]];
    return undefined;
  }
  function clear(w) {
    w.timers.forEach(clearTimeout);
    w.timers = [];
  }
  function later(w, ms, fn) {
    w.timers.push(setTimeout(fn, ms));
  }

  function start(w) {
    clear(w);
    w.token = "";
    w.expired = false;
    if (w.input) w.input.value = "";
    w.label.textContent = "Verifying you are human…";
    w.button.hidden = true;
    var sitekey = String(w.params.sitekey || "");
    if (sitekey.indexOf("2x") === 0 || options().fail) {
      later(w, 200, function () {
        w.label.textContent = "Verification failed";
        call(w.params["error-callback"], "600010");
      });
    } else if (sitekey.indexOf("3x") === 0) {
      w.label.textContent = "Confirm you are human";
      w.button.hidden = false;
      later(w, 60000, function () {
        call(w.params["timeout-callback"]);
      });
    } else {
      later(w, 250, function () {
        issue(w);
      });
    }
  }

  function issue(w) {
    clear(w);
    w.button.hidden = true;
    var claims = {
      n: Math.random().toString(36).slice(2) + Date.now().toString(36),
      a: w.params.action || "",
      c: w.params.cData || "",
      h: window.location.hostname,
      t: new Date().toISOString(),
    };
    w.token = "XXXX.DUMMY.TOKEN." + b64url(JSON.stringify(claims));
    if (w.input) w.input.value = w.token;
    w.label.textContent = "Success!";
    call(w.params.callback, w.token, false);
    later(w, options().ttlMs || TOKEN_TTL_MS, function () {
      w.expired = true;
      var old = w.token;
      w.token = "";
      if (w.input) w.input.value = "";
      w.label.textContent = "Expired";
      call(w.params["expired-callback"], old);
      if ((w.params["refresh-expired"] || "auto") === "auto") start(w);
    });
  }

  function render(container, params) {
    var el = typeof container === "string" ? document.querySelector(container) : container;
    if (!el) throw new Error("[Turnstile stand-in] container not found");
    params = params || {};
    var id = "cf-standin-" + ++seq;
    var box = document.createElement("div");
    box.setAttribute("data-standin-widget", id);
    // The language the page asked the widget to speak, for tests to read (the real widget localises itself).
    box.setAttribute("data-language", String(params.language || "auto"));
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Turnstile (local stand-in)");
    box.style.cssText =
      "display:flex;align-items:center;gap:8px;border:1px solid #767676;border-radius:4px;padding:8px 12px;width:300px;height:65px;box-sizing:border-box;background:#fafafa;color:#1b1f24;font:14px system-ui,sans-serif";
    var label = document.createElement("span");
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = "I am human";
    button.hidden = true;
    box.appendChild(button);
    box.appendChild(label);
    var input = null;
    if (params["response-field"] !== false) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = params["response-field-name"] || "cf-turnstile-response";
      box.appendChild(input);
    }
    el.appendChild(box);
    var w = {
      id: id,
      container: el,
      params: params,
      box: box,
      label: label,
      button: button,
      input: input,
      token: "",
      expired: false,
      timers: [],
    };
    button.addEventListener("click", function () {
      issue(w);
    });
    widgets[id] = w;
    order.push(id);
    if (params.execution !== "execute") start(w);
    return id;
  }

  window.turnstile = {
    render: render,
    reset: function (ref) {
      var w = find(ref);
      if (w) start(w);
    },
    remove: function (ref) {
      var w = find(ref);
      if (!w) return;
      clear(w);
      w.box.remove();
      delete widgets[w.id];
      order = order.filter(function (x) {
        return x !== w.id;
      });
    },
    getResponse: function (ref) {
      var w = find(ref);
      return w ? w.token : undefined;
    },
    isExpired: function (ref) {
      var w = find(ref);
      return w ? w.expired : false;
    },
    execute: function (ref, params) {
      var w = find(ref);
      if (w) start(w);
      else if (ref && params) render(ref, params);
    },
    ready: function (fn) {
      fn();
    },
  };

  // data-* attribute → render parameter; callbacks name global functions, as with the real script.
  var DATA_PARAMS = [
    "sitekey",
    "action",
    "cdata:cData",
    "theme",
    "size",
    "tabindex",
    "language",
    "appearance",
    "execution",
    "retry",
    "retry-interval",
    "refresh-expired",
    "refresh-timeout",
    "response-field-name",
  ];
  var DATA_CALLBACKS = [
    "callback",
    "error-callback",
    "expired-callback",
    "timeout-callback",
    "before-interactive-callback",
    "after-interactive-callback",
    "unsupported-callback",
  ];
  function paramsFromData(el) {
    var params = {};
    DATA_PARAMS.forEach(function (entry) {
      var parts = entry.split(":");
      var value = el.getAttribute("data-" + parts[0]);
      if (value !== null) params[parts[1] || parts[0]] = value;
    });
    DATA_CALLBACKS.forEach(function (name) {
      var fn = el.getAttribute("data-" + name);
      if (fn)
        params[name] = function () {
          if (typeof window[fn] === "function") return window[fn].apply(null, arguments);
        };
    });
    if (el.getAttribute("data-response-field") === "false") params["response-field"] = false;
    return params;
  }
  function renderImplicit() {
    var found = document.querySelectorAll(".cf-turnstile");
    for (var i = 0; i < found.length; i++) {
      if (!found[i].hasAttribute("data-standin-rendered")) {
        found[i].setAttribute("data-standin-rendered", "");
        render(found[i], paramsFromData(found[i]));
      }
    }
  }

  var script = document.currentScript;
  var query = script && script.src ? new URL(script.src).searchParams : new URLSearchParams();
  var onload = query.get("onload");
  if (query.get("render") !== "explicit") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", renderImplicit);
    else renderImplicit();
  }
  if (onload && typeof window[onload] === "function") setTimeout(window[onload], 0);
})();
