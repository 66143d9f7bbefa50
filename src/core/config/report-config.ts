/**
 * The configuration of what the bot writes down about its trading: the trading-day report's samples and where
 * it goes, and the evaluation (markout horizons, the board's horizon, the rates that turn chain fees into the
 * quote currency), and the recording of what it saw and did.
 */
import { z } from 'zod';
import { humanDecimal } from './common.ts';

export const reportSchema = z
  .strictObject({
    sampleMs: z
      .number()
      .int()
      .min(100)
      .default(5_000)
      .describe(
        "How often each pair's mark, position, PnL, quoted spread and presence are written down for the trading-day report",
      ),
    out: z
      .string()
      .min(1)
      .default('reports')
      .describe('Directory of dlt-mm report, relative to the config file (--out wins)'),
  })
  .default({ sampleMs: 5_000, out: 'reports' });

export const recordSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Record what the bot sees and does, one file per trading day'),
    dir: z
      .string()
      .min(1)
      .default('recordings')
      .describe('Directory of the recording files, relative to the config file'),
    maxBytes: z
      .number()
      .int()
      .min(1_048_576)
      .default(4_294_967_296)
      .describe("Largest size of one day's file; rows beyond it are refused (counted, logged once)"),
    flushMs: z.number().int().min(10).default(500).describe('Buffered rows are written this often'),
  })
  .prefault({});

export const evaluationSchema = z
  .strictObject({
    markoutHorizonsMs: z
      .array(z.number().int().min(1))
      .min(1)
      .max(8)
      .default([1_000, 10_000, 60_000, 300_000])
      .describe('Markout horizons: each fill is valued again this long after it (fair value, else the mid of others)'),
    boardHorizonMs: z
      .number()
      .int()
      .min(1)
      .default(60_000)
      .describe('The markout horizon the board shows (one of markoutHorizonsMs)'),
    chainFeeRate: z
      .strictObject({
        evm: humanDecimal.default('0').describe('Quote units per native unit of chain A (ETH, say)'),
        wasm: humanDecimal.default('0').describe('Quote units per native unit of chain B (XLM, say)'),
      })
      .prefault({})
      .describe(
        "Rates that turn the chains' native fees into the quote currency for the PnL attribution; 0 leaves them out",
      ),
  })
  .prefault({});

/** Cross-field rules of the evaluation block; returns every problem. */
export function evaluationProblems(e: z.infer<typeof evaluationSchema>): string[] {
  const problems: string[] = [];
  if (new Set(e.markoutHorizonsMs).size !== e.markoutHorizonsMs.length)
    problems.push('evaluation.markoutHorizonsMs: each horizon at most once');
  if (!e.markoutHorizonsMs.includes(e.boardHorizonMs))
    problems.push(
      `evaluation.boardHorizonMs: ${e.boardHorizonMs} is not one of markoutHorizonsMs (${e.markoutHorizonsMs.join(', ')})`,
    );
  return problems;
}
