// Where a worker thread's entry file is, beside the module that starts it: sources run as .ts (Node type
// stripping), a tsc build emits .js next to the caller, so the extension follows the caller's own.
export function siblingWorkerUrl(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}
