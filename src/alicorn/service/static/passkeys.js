// Passkeys for Alicorn's pages: register one (Passkeys page), and sign an approval in the inbox with it.
// The server gives WebAuthn options as JSON (binary fields in base64url); an approval's challenge is the digest
// of the exact decision (run, plan hash, goal hash, terms, comment, a one-time nonce). No library, no build step.
"use strict";
(function () {
  function toBytes(text) {
    const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  }
  function toText(buffer) {
    let s = "";
    new Uint8Array(buffer).forEach((b) => { s += String.fromCharCode(b); });
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  async function post(url, csrf, body) {
    const answer = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body || {}),
    });
    const data = await answer.json();
    if (!answer.ok) throw new Error(data.detail || answer.statusText);
    return data;
  }
  function show(id, message) {
    const box = document.getElementById(id);
    if (box) { box.textContent = message; box.hidden = false; }
  }
  function descriptors(list) {
    return (list || []).map((c) => Object.assign({}, c, { id: toBytes(c.id) }));
  }

  async function register(form) {
    const csrf = form.dataset.csrf;
    const o = await post("/passkeys/register/options", csrf);
    const made = await navigator.credentials.create({ publicKey: Object.assign({}, o, {
      challenge: toBytes(o.challenge), user: Object.assign({}, o.user, { id: toBytes(o.user.id) }),
      excludeCredentials: descriptors(o.excludeCredentials),
    }) });
    const r = made.response;
    await post("/passkeys/register", csrf, { name: form.elements.name.value, credential: {
      id: made.id, rawId: toText(made.rawId), type: made.type,
      response: { clientDataJSON: toText(r.clientDataJSON), attestationObject: toText(r.attestationObject),
                  transports: r.getTransports ? r.getTransports() : [] },
      clientExtensionResults: made.getClientExtensionResults(),
    } });
    location.reload();
  }

  async function approve(form) {
    let asked = { options: null };
    try {
      asked = await post("/passkeys/approval-options", form.elements.csrf.value, {
        run: form.dataset.run, plan_hash: form.elements.plan_hash.value, comment: form.elements.comment.value.trim(),
      });
    } catch (err) {
      return form.submit(); // the server's own page says what is wrong (a missing token, a stale plan…)
    }
    if (asked.options) {
      const o = asked.options;
      const got = await navigator.credentials.get({ publicKey: Object.assign({}, o, {
        challenge: toBytes(o.challenge), allowCredentials: descriptors(o.allowCredentials),
      }) });
      const r = got.response;
      form.elements.passkey.value = JSON.stringify({
        id: got.id, rawId: toText(got.rawId), type: got.type,
        response: { authenticatorData: toText(r.authenticatorData), clientDataJSON: toText(r.clientDataJSON),
                    signature: toText(r.signature), userHandle: r.userHandle ? toText(r.userHandle) : null },
        clientExtensionResults: got.getClientExtensionResults(),
      });
    }
    form.submit(); // without a passkey the server decides: it refuses when this home requires one
  }

  document.addEventListener("DOMContentLoaded", function () {
    const reg = document.getElementById("register-passkey");
    if (reg) reg.addEventListener("submit", (e) => {
      e.preventDefault();
      register(reg).catch((err) => show("passkey-problem", err.message));
    });
    document.querySelectorAll("form[data-passkey-approve]").forEach((form) => {
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        approve(form).catch((err) => show("passkey-problem-" + form.dataset.run, err.message));
      });
    });
  });
})();
