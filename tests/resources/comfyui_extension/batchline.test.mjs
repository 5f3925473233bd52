// The extension's script against a stub of the frontend's app object (the parts of
// comfyui_frontend_package 1.27 it uses) and a real local HTTP server standing for Batchline.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";

const ext = await import("../../../resources/comfyui-extension/batchline-send/js/batchline.js");

function stubApp({ settings = {}, answers = [], filename = "Fox portrait" } = {}) {
  const stored = { ...settings };
  const toasts = [];
  const asked = [];
  const app = {
    graph: { serialize: () => ({ nodes: [{ id: 1, type: "KSampler" }], links: [], version: 0.4 }) },
    graphToPrompt: async () => ({ workflow: {}, output: { 1: { class_type: "KSampler", inputs: {} } } }),
    extensionManager: {
      workflow: { activeWorkflow: filename === null ? null : { filename, path: `workflows/${filename}.json` } },
      setting: { get: (id) => stored[id], set: async (id, value) => void (stored[id] = value) },
      toast: { add: (t) => toasts.push(t) },
      dialog: {
        prompt: async ({ message }) => {
          asked.push(message);
          return answers.shift() ?? null;
        },
      },
    },
  };
  return { app, stored, toasts, asked };
}

async function batchline(handler) {
  const seen = [];
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: data });
      handler(req, res, data);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const address = `http://127.0.0.1:${server.address().port}`;
  return { address, seen, close: () => new Promise((r) => server.close(r)) };
}

function json(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

test("sends the name, graph, API prompt and origin with the token; says what Batchline said", async () => {
  const server = await batchline((req, res) =>
    json(res, 201, { preset: "Fox portrait", version: 1, outcome: "created", message: "Sent to Batchline as 'Fox portrait'", window: true }),
  );
  try {
    const { app, toasts } = stubApp({
      settings: { [ext.ADDRESS_SETTING]: server.address + "/", [ext.TOKEN_SETTING]: "tok-1" },
    });
    const result = await ext.sendWorkflow(app, { origin: "http://127.0.0.1:8188" });
    assert.deepEqual(result, { ok: true, text: "Sent to Batchline as 'Fox portrait'" });
    assert.equal(server.seen.length, 1);
    const [sent] = server.seen;
    assert.equal(sent.method, "POST");
    assert.equal(sent.url, "/v1/comfyui/workflows");
    assert.equal(sent.headers.authorization, "Bearer tok-1");
    assert.equal(sent.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(sent.body), {
      name: "Fox portrait",
      workflow: { nodes: [{ id: 1, type: "KSampler" }], links: [], version: 0.4 },
      prompt: { 1: { class_type: "KSampler", inputs: {} } },
      comfyui: "http://127.0.0.1:8188",
    });
    assert.equal(toasts.length, 1);
    assert.equal(toasts[0].severity, "success");
    assert.equal(toasts[0].detail, "Sent to Batchline as 'Fox portrait'");
  } finally {
    await server.close();
  }
});

test("a refused token shows Batchline's own message", async () => {
  const server = await batchline((req, res) => json(res, 401, { error: "unauthorized", message: "That token is not known to Batchline." }));
  try {
    const { app, toasts } = stubApp({ settings: { [ext.ADDRESS_SETTING]: server.address, [ext.TOKEN_SETTING]: "bad" } });
    const result = await ext.sendWorkflow(app, { origin: "http://x" });
    assert.equal(result.ok, false);
    assert.equal(result.text, "Not sent to Batchline: That token is not known to Batchline.");
    assert.equal(toasts[0].severity, "error");
    assert.equal(toasts[0].detail, result.text);
  } finally {
    await server.close();
  }
});

test("an answer without JSON still says why", async () => {
  const server = await batchline((req, res) => {
    res.writeHead(500);
    res.end("boom");
  });
  try {
    const { app } = stubApp({ settings: { [ext.ADDRESS_SETTING]: server.address, [ext.TOKEN_SETTING]: "t" } });
    const result = await ext.sendWorkflow(app, { origin: "http://x" });
    assert.match(result.text, /^Not sent to Batchline: Batchline answered 500/);
  } finally {
    await server.close();
  }
});

test("Batchline not running: says where it looked", async () => {
  const server = await batchline(() => {});
  const address = server.address;
  await server.close();
  const { app, toasts } = stubApp({ settings: { [ext.ADDRESS_SETTING]: address, [ext.TOKEN_SETTING]: "t" } });
  const result = await ext.sendWorkflow(app, { origin: "http://x" });
  assert.equal(result.text, `Batchline does not answer at ${address}; is it running?`);
  assert.equal(toasts[0].detail, result.text);
});

test("a Batchline that answers but refuses this origin (CORS) is told apart from none", async () => {
  const asked = [];
  const refusedByTheBrowser = async (url, init) => {
    asked.push(init.mode ?? init.method);
    if (init.mode === "no-cors") return { ok: false, status: 0, type: "opaque" };
    throw new TypeError("Failed to fetch");
  };
  const { app, toasts } = stubApp({ settings: { [ext.ADDRESS_SETTING]: "http://127.0.0.1:8190", [ext.TOKEN_SETTING]: "t" } });
  const result = await ext.sendWorkflow(app, { fetchImpl: refusedByTheBrowser, origin: "http://box:8188" });
  assert.deepEqual(asked, ["POST", "no-cors"]);
  assert.equal(
    result.text,
    "Batchline at http://127.0.0.1:8190 did not let this editor in: add http://box:8188 in Batchline's Settings (Other pages), or check the address.",
  );
  assert.equal(toasts[0].detail, result.text);
});

test("asks for the address and token once, then keeps them in ComfyUI's settings", async () => {
  const server = await batchline((req, res) => json(res, 200, { message: "Sent to Batchline as 'Fox portrait'" }));
  try {
    const { app, stored, asked } = stubApp({ answers: [server.address, "tok-9"] });
    assert.equal((await ext.sendWorkflow(app, { origin: "http://x" })).ok, true);
    assert.equal(asked.length, 2);
    assert.equal(stored[ext.ADDRESS_SETTING], server.address);
    assert.equal(stored[ext.TOKEN_SETTING], "tok-9");
    assert.equal((await ext.sendWorkflow(app, { origin: "http://x" })).ok, true);
    assert.equal(asked.length, 2, "asked again although the settings were kept");
    assert.equal(server.seen[1].headers.authorization, "Bearer tok-9");
  } finally {
    await server.close();
  }
});

test("cancelling the question sends nothing and says so", async () => {
  let calls = 0;
  const { app, toasts } = stubApp({ answers: [] });
  const result = await ext.sendWorkflow(app, { fetchImpl: async () => calls++, origin: "http://x" });
  assert.equal(result.ok, false);
  assert.equal(calls, 0);
  assert.match(toasts[0].detail, /set Batchline's address and token/);
});

test("the name drops .json and falls back when the tab has none", () => {
  assert.equal(ext.workflowName(stubApp({ filename: "Dusk.json" }).app), "Dusk");
  assert.equal(ext.workflowName(stubApp({ filename: null }).app), "Unsaved workflow");
});

test("registers the menu command, the settings and the canvas menu item", async () => {
  const { app } = stubApp();
  const extension = ext.makeExtension(app);
  assert.deepEqual(extension.menuCommands, [{ path: ["Workflow"], commands: [ext.COMMAND_ID] }]);
  assert.equal(extension.commands[0].label, "Send to Batchline");
  assert.deepEqual(extension.settings.map((s) => s.id), [ext.ADDRESS_SETTING, ext.TOKEN_SETTING]);
  class LGraphCanvas {
    getCanvasMenuOptions() {
      return [{ content: "Add Node" }];
    }
  }
  globalThis.LGraphCanvas = LGraphCanvas;
  try {
    extension.setup();
    const items = new LGraphCanvas().getCanvasMenuOptions();
    assert.equal(items[0].content, "Add Node");
    assert.equal(items.at(-1).content, "Send to Batchline");
    assert.equal(typeof items.at(-1).callback, "function");
  } finally {
    delete globalThis.LGraphCanvas;
  }
});
