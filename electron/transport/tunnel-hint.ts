import { hostname, userInfo } from 'node:os';

/**
 * The command a user runs on their own computer to reach a loopback engine on this rig, printed
 * beside the URL so nobody has to work it out. The local port is the engine's port, so the
 * printed URL opens as is.
 */
export function sshTunnelCommand(port: number, env: NodeJS.ProcessEnv = process.env): string {
  let user = env.USER ?? env.LOGNAME ?? '';
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'you';
    }
  }
  return `ssh -N -L ${port}:127.0.0.1:${port} ${user}@${hostname()}`;
}
