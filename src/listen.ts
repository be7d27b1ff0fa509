import { ConfigError } from './config.js';

/** The settings a listener was started with, and what a user types to change each. */
export interface ListenSetting {
  port: number;
  host: string;
  portFlag: string;
  hostFlag: string;
}

/**
 * A listener's failure to start, in terms of the setting to change (a raw EADDRINUSE after "sandbox
 * started" told a newcomer nothing): a port taken or not allowed names the port's flag, an address
 * this machine does not have names the host's. Anything else is left as it is.
 */
export function explainListenError(error: unknown, setting: ListenSetting): unknown {
  const { port, host, portFlag, hostFlag } = setting;
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return new ConfigError(`port ${port} on ${host} is already in use (another svc-mcp, or another program): choose a free one with ${portFlag}, or stop what holds it`);
    case 'EACCES':
      return new ConfigError(`port ${port} on ${host} needs privileges this user lacks (ports below 1024 usually do): choose one above 1023 with ${portFlag}`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`${host} is not an address of this machine: set ${hostFlag} to one it has, such as 127.0.0.1`);
    default:
      return error;
  }
}
