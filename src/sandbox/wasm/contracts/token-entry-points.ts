/** The token contract's entry points (the asset contract's interface plus the venue's `trust`), one per name. */
import { requireAuth } from '../host.ts';
import { arity, read, scv } from '../scval.ts';
import type { EntryPoints } from './entry-points.ts';
import type { TokenContract } from './token.ts';

export const TOKEN_ENTRY_POINTS: EntryPoints<TokenContract> = {
  trust: ({ contract, env, frame, fn, args }) => {
    arity(args, 1, fn);
    const who = read.address(args[0], 'addr');
    requireAuth(env, frame, who);
    contract.trust(env, who);
    return scv.void();
  },
  authorized: ({ contract, env, fn, args }) => {
    arity(args, 1, fn);
    return scv.bool(contract.authorized(env, read.address(args[0], 'id')));
  },
  balance: ({ contract, env, fn, args }) => {
    arity(args, 1, fn);
    return scv.i128(contract.balance(env, read.address(args[0], 'id')));
  },
  allowance: ({ contract, env, fn, args }) => {
    arity(args, 2, fn);
    return scv.i128(contract.allowance(env, read.address(args[0], 'from'), read.address(args[1], 'spender')));
  },
  approve: ({ contract, env, frame, fn, args }) => {
    arity(args, 4, fn);
    const from = read.address(args[0], 'from');
    requireAuth(env, frame, from);
    contract.approve(
      env,
      from,
      read.address(args[1], 'spender'),
      read.i128(args[2], 'amount'),
      read.u32(args[3], 'expiration_ledger'),
    );
    return scv.void();
  },
  transfer: ({ contract, env, frame, fn, args }) => {
    arity(args, 3, fn);
    const from = read.address(args[0], 'from');
    requireAuth(env, frame, from);
    contract.transfer(env, from, read.address(args[1], 'to'), read.i128(args[2], 'amount'));
    return scv.void();
  },
  transfer_from: ({ contract, env, frame, fn, args }) => {
    arity(args, 4, fn);
    const spender = read.address(args[0], 'spender');
    requireAuth(env, frame, spender);
    contract.transferFrom(
      env,
      spender,
      read.address(args[1], 'from'),
      read.address(args[2], 'to'),
      read.i128(args[3], 'amount'),
    );
    return scv.void();
  },
  mint: ({ contract, env, frame, fn, args }) => {
    arity(args, 2, fn);
    requireAuth(env, frame, contract.config.issuer);
    contract.mint(env, read.address(args[0], 'to'), read.i128(args[1], 'amount'));
    return scv.void();
  },
  set_authorized: ({ contract, env, frame, fn, args }) => {
    arity(args, 2, fn);
    requireAuth(env, frame, contract.config.issuer);
    contract.setAuthorized(env, read.address(args[0], 'id'), read.bool(args[1], 'authorize'));
    return scv.void();
  },
  admin: ({ contract, fn, args }) => {
    arity(args, 0, fn);
    return scv.address(contract.config.issuer);
  },
  decimals: ({ contract, fn, args }) => {
    arity(args, 0, fn);
    return scv.u32(contract.config.decimals);
  },
  name: ({ contract, fn, args }) => {
    arity(args, 0, fn);
    return scv.str(contract.name);
  },
  symbol: ({ contract, fn, args }) => {
    arity(args, 0, fn);
    return scv.str(contract.config.code);
  },
};
