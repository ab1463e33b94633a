import { BrowserWindow, shell, session, type NativeImage } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONTENT_SECURITY_POLICY } from './transport/headless-server.ts';

const EXTERNAL_ALLOW = [
  // The engine's one-shot browser-wallet signing page (loopback, tokened).
  /^http:\/\/127\.0\.0\.1:\d+\//,
  /^https:\/\/(provider\.)?engy\.ai\//,
  /^https:\/\/taostats\.io\//,
  /^https:\/\/github\.com\/hanlinai\//,
  /^https:\/\/huggingface\.co\//,
];

export function rendererIndexUrl(rendererDir: string): string {
  return pathToFileURL(join(rendererDir, 'index.html')).href;
}

export function isTrustedRendererUrl(url: string, rendererDir: string): boolean {
  return url.startsWith(pathToFileURL(rendererDir).href + '/');
}

/**
 * The app window with Electron's hardened defaults: isolated, sandboxed, no node, strict CSP, no navigation.
 * `icon` is for Linux, where a window has no icon of its own (Windows and macOS take the executable's).
 */
export function createMainWindow(rendererDir: string, preloadPath: string, icon?: NativeImage): BrowserWindow {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, permission, allow) => allow(permission === 'notifications' || permission === 'clipboard-sanitized-write'));
  const win = new BrowserWindow({
    width: 1320,
    height: 900,
    minWidth: 960,
    minHeight: 640,
    show: false,
    backgroundColor: '#0b1020',
    title: 'engy panel',
    ...(icon ? { icon } : {}),
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  win.webContents.on('will-navigate', (e, url) => {
    if (!isTrustedRendererUrl(url, rendererDir)) e.preventDefault();
  });
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (EXTERNAL_ALLOW.some((r) => r.test(url))) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(rendererIndexUrl(rendererDir));
  return win;
}
