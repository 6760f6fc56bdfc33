// HybridKit bridge runtime: published state (`hybrid.state`), the values native publishes, deep-frozen.
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   from transport.js stringify, isMainFrame, securityOrigin.

// Published state: name → deep-frozen value, so a page that changes what it read changes nothing for others.
const stateValues = new Map();
const stateTexts = new Map();
const stateListeners = new Map();
const STATE_CHANGED = '\u0000state';

function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

function setState(name, value) {
  const text = stringify(value);
  if (stateTexts.get(name) === text) return;
  if (value === undefined) {
    stateTexts.delete(name);
    stateValues.delete(name);
  } else {
    stateTexts.set(name, text);
    stateValues.set(name, deepFreeze(value));
  }
  const set = stateListeners.get(name);
  if (!set) return;
  for (const fn of Array.from(set)) {
    try {
      fn(stateValues.get(name));
    } catch (e) {
      setTimeout(() => { throw e; });
    }
  }
}

/** The document-start snapshot: every entry says who may read it; keep only what this frame may. */
function applyStateSnapshot(entries) {
  if (!Array.isArray(entries)) return;
  for (const e of entries) {
    if (!e || typeof e.n !== 'string') continue;
    const frameOK = isMainFrame || e.s === true;
    const originOK = e.o === null || (Array.isArray(e.o) && securityOrigin !== 'null' && e.o.includes(securityOrigin));
    if (frameOK && originOK) setState(e.n, e.v);
  }
}

/** Native's word on what this frame may read now: the whole set (names missing from it are gone). */
function applyState(values) {
  if (!values || typeof values !== 'object') return;
  for (const name of Array.from(stateValues.keys())) if (!Object.prototype.hasOwnProperty.call(values, name)) setState(name, undefined);
  for (const name of Object.keys(values)) setState(name, values[name]);
}
