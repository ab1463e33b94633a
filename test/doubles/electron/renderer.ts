// TEST DOUBLE: the renderer half of the stand-in `electron`: contextBridge and ipcRenderer as a
// sandboxed preload sees them, bound to one window's webContents, and a runner that evaluates the
// real built preload (CommonJS) in a vm context the way Electron's sandboxed preload runs it: a
// function wrapper with require/module/exports, where require('electron') is this renderer module.
import { readFileSync } from 'node:fs';
import { createContext, compileFunction } from 'node:vm';
import { ipcMain, type WebContents } from './electron.ts';

export interface PreloadWorld {
  /** What the preload exposed with contextBridge.exposeInMainWorld, by key. */
  exposed: Record<string, unknown>;
}

function rendererModule(wc: WebContents, exposed: Record<string, unknown>): object {
  const ipcRenderer = {
    invoke: (channel: string, ...args: unknown[]): Promise<unknown> => ipcMain.invokeFrom(wc, channel, args),
    on(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
      let set = wc.rendererListeners.get(channel);
      if (!set) wc.rendererListeners.set(channel, (set = new Set()));
      set.add(listener);
      return ipcRenderer;
    },
    removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
      wc.rendererListeners.get(channel)?.delete(listener);
      return ipcRenderer;
    },
  };
  const contextBridge = {
    exposeInMainWorld(key: string, api: unknown): void {
      if (key in exposed) throw new Error(`Cannot bind an API on top of an existing property on the window object: ${key}`);
      // The page gets a frozen copy: it cannot reach back into the preload's objects.
      exposed[key] = Object.freeze({ ...(api as object) });
    },
  };
  return { contextBridge, ipcRenderer };
}

/** Runs the preload file as CommonJS; throws a SyntaxError for an ES module (a sandboxed preload cannot be one). */
export function runPreload(preloadPath: string, wc: WebContents): PreloadWorld {
  const exposed: Record<string, unknown> = {};
  const electronModule = rendererModule(wc, exposed);
  const sandboxRequire = (id: string): unknown => {
    if (id === 'electron') return electronModule;
    // Electron's sandboxed preload may require only a few built-ins; never project files.
    throw new Error(`module not found: ${id} (a sandboxed preload can only require 'electron')`);
  };
  const context = createContext({ console });
  const fn = compileFunction(readFileSync(preloadPath, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: preloadPath, parsingContext: context });
  const module = { exports: {} };
  fn.call(module.exports, module.exports, sandboxRequire, module, preloadPath, '.');
  return { exposed };
}
