/**
 * Raw HTTP for the hostile-input tests: bytes written to a server as they are, over TCP or TLS,
 * and what came back — the status of the first answer, if any — and whether the server closed the
 * connection. No HTTP client here would send the malformed requests these tests need.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

/** Where a server listens; `ca` for HTTPS. */
export interface Target {
  host: string;
  port: number;
  ca?: string;
}

export function targetOf(url: string, ca?: string): Target {
  const { hostname, port, protocol } = new URL(url);
  return { host: hostname, port: Number(port), ...(protocol === 'https:' ? { ca } : {}) };
}

/** A connection, TLS if the target has a CA: the handshake goes on while the caller writes. */
export function open(target: Target): Socket {
  const { host, port, ca } = target;
  const socket = ca === undefined ? connectTcp(port, host) : connectTls({ host, port, ca, servername: 'localhost' });
  socket.on('error', () => undefined); // a reset after the server's answer is seen as the close it is
  return socket;
}

export interface Outcome {
  /** The status of the first answer, or `null` if the server answered nothing. */
  status: number | null;
  /** Everything received. */
  text: string;
}

/**
 * What the socket receives until it is closed; with `headOnly`, until the first answer's head is in,
 * when it closes the connection itself.
 */
export function closed(socket: Socket, headOnly = false): Promise<Outcome> {
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    if (headOnly && text.includes('\r\n\r\n')) socket.destroy();
  });
  return new Promise((resolve) => {
    socket.once('close', () => resolve({ status: statusOf(text), text }));
  });
}

/**
 * Writes the request and reads until the first answer's head is in (then closes the connection)
 * or until the server closes it.
 */
export function exchange(target: Target, request: string | null): Promise<Outcome> {
  const socket = open(target);
  const outcome = closed(socket, true);
  if (request !== null) socket.write(request, 'latin1');
  return outcome;
}

function statusOf(text: string): number | null {
  const match = /^HTTP\/1\.[01] (\d{3}) /.exec(text);
  return match ? Number(match[1]) : null;
}
