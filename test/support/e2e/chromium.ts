/**
 * A report page opened from disk in headless Chromium (Debian's, through playwright-core): each chart figure as
 * drawn (its SVG's size and marks), every console or page error, every request, and the page itself for
 * further reads while `use` runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export interface DrawnChart {
  readonly id: string | null;
  readonly width: number;
  readonly height: number;
  readonly marks: number;
}

export interface OpenedPage {
  readonly page: Page;
  readonly charts: readonly DrawnChart[];
  readonly problems: readonly string[];
  readonly requests: readonly string[];
}

export async function withReportPage<T>(html: string, use: (opened: OpenedPage) => Promise<T>): Promise<T> {
  const profile = mkdtempSync(join(tmpdir(), 'dltmm-chromium-'));
  let browser: BrowserContext | null = null;
  try {
    // Debian's Chromium, headless, with a fresh profile and none of its background network traffic.
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${html}`);
    const charts = await page.$$eval('figure.chart', (figures) =>
      figures.map((f) => {
        const svg = f.querySelector('svg');
        const box = svg?.getBoundingClientRect();
        return {
          id: f.getAttribute('data-chart'),
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          marks: svg?.querySelectorAll('path, rect, line, circle, text').length ?? 0,
        };
      }),
    );
    return await use({ page, charts, problems, requests });
  } finally {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
