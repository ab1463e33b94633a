// Sandboxed preload: exposes only invoke/on for the contract's two channels. A sandboxed preload
// cannot require project files, so the channel names are repeated here; a test keeps them equal
// to shared/api.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload is CommonJS
const { contextBridge, ipcRenderer } = require('electron') as typeof import('electron');
type IpcRendererEvent = import('electron').IpcRendererEvent;

const INVOKE_CHANNEL = 'engy:invoke';
const EVENT_CHANNEL = 'engy:event';

contextBridge.exposeInMainWorld('engy', {
  invoke: (method: string, req: unknown): Promise<unknown> => ipcRenderer.invoke(INVOKE_CHANNEL, method, req),
  on: (listener: (e: unknown) => void): (() => void) => {
    const wrapped = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, wrapped);
    return () => ipcRenderer.removeListener(EVENT_CHANNEL, wrapped);
  },
});
