/** The venue's open-order list of one wallet, as its REST API serves it: every page, `pairId:orderId` sorted. */
export async function venueOpenOrders(
  venue: { readonly restUrl: string; readonly accessToken: string },
  wallet: string,
): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '1000', ...(cursor === undefined ? {} : { cursor }) });
    const res = await fetch(`${venue.restUrl}/wallets/${wallet}/orders?${query}`, {
      headers: { authorization: `Bearer ${venue.accessToken}` },
    });
    if (!res.ok) throw new Error(`GET /wallets/${wallet}/orders: ${res.status}`);
    const body = (await res.json()) as {
      items: Array<{ externalOrderId: number | string; tradingPairId: string }>;
      next_cursor?: string;
    };
    if (!Array.isArray(body.items))
      throw new Error(`GET /wallets/${wallet}/orders: no items in ${JSON.stringify(body).slice(0, 200)}`);
    for (const o of body.items) out.push(`${o.tradingPairId}:${String(o.externalOrderId)}`);
    cursor = body.next_cursor;
  } while (cursor !== undefined);
  return out.toSorted();
}
