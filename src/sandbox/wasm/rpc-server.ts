/**
 * JSON-RPC 2.0 over HTTP on a loopback port, at `/rpc` (and `/`), in front of a WasmEmulator; plus a
 * friendbot-like `GET|POST /friendbot?addr=G...` that creates and funds an account (10,000 XLM) and answers
 * with the created account in `result_meta_xdr`, the shape the SDK's `requestAirdrop` reads. A malformed
 * request gets the server's JSON-RPC error, never a crash.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { LOOPBACK } from '../net.ts';
import { sha256 } from './crypto.ts';
import type { WasmEmulator } from './emulator.ts';
import { accountEntry } from './ledger-entries.ts';
import { RpcError } from './rpc-error.ts';
import { METHODS } from './rpc-methods.ts';

const MAX_BODY = 10 * 1024 * 1024;
export const FRIENDBOT_STROOPS = 100_000_000_000n;

export interface RpcServerOptions {
  readonly port: number;
  readonly host?: string;
}

export interface RunningRpc {
  readonly url: string;
  readonly friendbotUrl: string;
  readonly port: number;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function dispatch(emu: WasmEmulator, req: unknown, friendbotUrl: string): Json | null {
  const id = typeof req === 'object' && req !== null && 'id' in req ? (req as Json).id : null;
  try {
    if (typeof req !== 'object' || req === null || Array.isArray(req)) throw new RpcError(-32600, 'invalid request');
    const r = req as Json;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string')
      throw new RpcError(-32600, 'invalid request: jsonrpc must be "2.0" and method a string');
    const handler = Object.hasOwn(METHODS, r.method) ? METHODS[r.method] : undefined;
    if (handler === undefined) throw new RpcError(-32601, `method not found: ${r.method}`);
    const result = handler(emu, r.params ?? null, { friendbotUrl });
    return { jsonrpc: '2.0', id, result };
  } catch (e) {
    if (e instanceof RpcError) return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message } };
    return { jsonrpc: '2.0', id, error: { code: -32603, message: e instanceof Error ? e.message : String(e) } };
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function friendbot(emu: WasmEmulator, url: URL, res: ServerResponse): void {
  const addr = url.searchParams.get('addr') ?? '';
  if (!StrKey.isValidEd25519PublicKey(addr)) return send(res, 400, { status: 400, detail: 'invalid address' });
  if (emu.world.accounts.has(addr)) return send(res, 400, { status: 400, detail: 'createAccountAlreadyExist' });
  const created = emu.fundAccount(addr, FRIENDBOT_STROOPS);
  const meta: xdr.TransactionMetaWire = {
    v: 4,
    v4: {
      ext: { v: 0 },
      txChangesBefore: [],
      operations: [{ ext: { v: 0 }, changes: [{ type: 0, created: accountEntry(created) }], events: [] }],
      txChangesAfter: [],
      sorobanMeta: null,
      events: [],
      diagnosticEvents: [],
    },
  };
  send(res, 200, {
    successful: true,
    hash: Buffer.from(sha256(Buffer.from(`friendbot:${addr}`))).toString('hex'),
    ledger: emu.latest.seq,
    result_meta_xdr: Buffer.from(xdr.TransactionMeta.schema.encode(meta)).toString('base64'),
  });
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startRpcServer(emu: WasmEmulator, options: RpcServerOptions): Promise<RunningRpc> {
  const host = options.host ?? LOOPBACK;
  let friendbotUrl = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/friendbot') return friendbot(emu, url, res);
    if (req.method !== 'POST' || (url.pathname !== '/rpc' && url.pathname !== '/'))
      return send(res, 404, { error: 'not found' });
    readBody(req).then(
      (text) => {
        if (text === null)
          return send(res, 413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'request too large' } });
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return send(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
        }
        if (Array.isArray(parsed)) {
          if (parsed.length === 0)
            return send(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
          return send(
            res,
            200,
            parsed.map((r) => dispatch(emu, r, friendbotUrl)),
          );
        }
        return send(res, 200, dispatch(emu, parsed, friendbotUrl));
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://${host}:${port}`;
  friendbotUrl = `${base}/friendbot`;
  return {
    url: `${base}/rpc`,
    friendbotUrl,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
