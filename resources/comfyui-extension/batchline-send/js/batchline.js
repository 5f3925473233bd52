// Send to Batchline: adds "Send to Batchline" to ComfyUI's editor menu (Workflow) and to the
// canvas context menu. It sends the open workflow's name, the editor graph, the API prompt the
// frontend makes from it and this editor's address to Batchline's local API, which stores it as
// a preset. Written for comfyui_frontend_package 1.27 (ComfyUI 0.3.6x).

export const EXTENSION_NAME = "Batchline.SendToBatchline";
export const COMMAND_ID = "Batchline.SendWorkflow";
export const MENU_LABEL = "Send to Batchline";
export const ADDRESS_SETTING = "Batchline.Send.Address";
export const TOKEN_SETTING = "Batchline.Send.Token";
export const DEFAULT_ADDRESS = "http://127.0.0.1:8190";
export const ROUTE = "/v1/comfyui/workflows";

// The workflow's name: the open tab's name without .json, else "Unsaved workflow".
export function workflowName(app) {
  const active = app.extensionManager?.workflow?.activeWorkflow;
  let name = active?.filename ?? "";
  if (!name && active?.path) name = String(active.path).split("/").pop();
  name = String(name).replace(/\.json$/i, "").trim();
  return name || "Unsaved workflow";
}

function settingStore(app) {
  return app.extensionManager?.setting ?? null;
}

function readSetting(app, id) {
  const value = settingStore(app)?.get(id);
  return typeof value === "string" ? value.trim() : "";
}

async function askText(app, title, message, defaultValue) {
  const dialog = app.extensionManager?.dialog;
  if (dialog?.prompt) return dialog.prompt({ title, message, defaultValue });
  return globalThis.prompt ? globalThis.prompt(message, defaultValue) : null;
}

// The address and token, asked once when either is missing, then kept in ComfyUI's settings.
export async function connection(app) {
  let address = readSetting(app, ADDRESS_SETTING);
  let token = readSetting(app, TOKEN_SETTING);
  if (!address) {
    const given = await askText(
      app,
      "Batchline's address",
      "Batchline's API address",
      DEFAULT_ADDRESS,
    );
    if (given === null || given === undefined || !String(given).trim()) return null;
    address = String(given).trim();
    await settingStore(app)?.set(ADDRESS_SETTING, address);
  }
  if (!token) {
    const given = await askText(
      app,
      "Batchline token (make one: batchline tokens create comfyui)",
      "Token",
      "",
    );
    if (given === null || given === undefined || !String(given).trim()) return null;
    token = String(given).trim();
    await settingStore(app)?.set(TOKEN_SETTING, token);
  }
  return { address: address.replace(/\/+$/, ""), token };
}

export function tell(app, ok, text) {
  const toast = app.extensionManager?.toast;
  if (toast?.add) {
    toast.add({
      severity: ok ? "success" : "error",
      summary: ok ? "Batchline" : "Batchline: not sent",
      detail: text,
      life: ok ? 4000 : 8000,
    });
  } else if (globalThis.alert) {
    globalThis.alert(text);
  } else {
    console.log(text);
  }
}

async function answerMessage(response) {
  try {
    const body = await response.json();
    if (body && typeof body.message === "string" && body.message) return body.message;
  } catch {
    // not JSON: fall through to the status line
  }
  return `Batchline answered ${response.status} ${response.statusText || ""}`.trim();
}

// The browser hides why a cross-origin request failed: an opaque ("no-cors") request tells a
// server that answers but refuses this origin (no CORS headers) from one that is not there.
async function answers(fetchImpl, url) {
  try {
    await fetchImpl(url, { method: "GET", mode: "no-cors" });
    return true;
  } catch {
    return false;
  }
}

// One send; resolves to {ok, text} and tells the artist the same text.
export async function sendWorkflow(app, { fetchImpl = globalThis.fetch, origin } = {}) {
  const where = await connection(app);
  if (!where) {
    const text = "Not sent to Batchline: set Batchline's address and token first.";
    tell(app, false, text);
    return { ok: false, text };
  }
  const body = {
    name: workflowName(app),
    workflow: app.graph.serialize(),
    prompt: (await app.graphToPrompt()).output,
    comfyui: origin ?? globalThis.location?.origin ?? "",
  };
  let response;
  try {
    response = await fetchImpl(where.address + ROUTE, {
      method: "POST",
      headers: { Authorization: `Bearer ${where.token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch {
    const text = (await answers(fetchImpl, where.address + ROUTE))
      ? `Batchline at ${where.address} did not let this editor in: add ${body.comfyui} in ` +
        "Batchline's Settings (Other pages), or check the address."
      : `Batchline does not answer at ${where.address}; is it running?`;
    tell(app, false, text);
    return { ok: false, text };
  }
  if (response.ok) {
    let text = `Sent to Batchline as '${body.name}'`;
    try {
      const answer = await response.json();
      if (answer && typeof answer.message === "string" && answer.message) text = answer.message;
    } catch {
      // an answer without JSON still means it was stored
    }
    tell(app, true, text);
    return { ok: true, text };
  }
  const text = `Not sent to Batchline: ${await answerMessage(response)}`;
  tell(app, false, text);
  return { ok: false, text };
}

// The extension object for app.registerExtension.
export function makeExtension(app, options = {}) {
  const send = () => sendWorkflow(app, options);
  return {
    name: EXTENSION_NAME,
    settings: [
      {
        id: ADDRESS_SETTING,
        category: ["Batchline", "Send", "Address"],
        name: "Batchline's address",
        tooltip: "Where Batchline's API listens, e.g. http://127.0.0.1:8190",
        type: "text",
        defaultValue: "",
      },
      {
        id: TOKEN_SETTING,
        category: ["Batchline", "Send", "Token"],
        name: "Batchline token",
        tooltip: "Make one with: batchline tokens create comfyui",
        type: "text",
        defaultValue: "",
      },
    ],
    commands: [{ id: COMMAND_ID, label: MENU_LABEL, icon: "pi pi-send", function: send }],
    menuCommands: [{ path: ["Workflow"], commands: [COMMAND_ID] }],
    setup() {
      const canvasClass = globalThis.LGraphCanvas;
      if (!canvasClass?.prototype?.getCanvasMenuOptions) return;
      const original = canvasClass.prototype.getCanvasMenuOptions;
      canvasClass.prototype.getCanvasMenuOptions = function (...args) {
        const options = original.apply(this, args) ?? [];
        options.push(null, { content: MENU_LABEL, callback: () => void send() });
        return options;
      };
    },
  };
}

const comfyApp = globalThis.window?.comfyAPI?.app?.app;
if (comfyApp) comfyApp.registerExtension(makeExtension(comfyApp));
