"""Reference bond figures from QuantLib (Debian's quantlib-python), for test/unit/core/bond/quantlib.test.ts.

Reads {"cases": [...]} as JSON on stdin; each case has coupon (percent), issue, maturity, settlement
(YYYY-MM-DD), frequency (1, 2, 4 or 12), dayCount, and either yield (percent) or cleanPrice (per 100).
Prints {"quantlib": version, "results": [...]}: per case the schedule dates, the coupon amounts, and
cleanPrice, accruedInterest, dirtyPrice and yield (percent), every number as a decimal string (repr).

The bond: FixedRateBond, face 100, settlement days 0, issue date given, on a schedule from the issue date to
maturity generated backward, NullCalendar, Unadjusted, end-of-month rule when maturity is the last day of its
month. Prices from BondFunctions.cleanPrice with the bond's own day counter, Compounded at the coupon
frequency; yields from BondFunctions.bondYield the same way.
"""
import json
import sys

import QuantLib as ql

FREQUENCIES = {1: ql.Annual, 2: ql.Semiannual, 4: ql.Quarterly, 12: ql.Monthly}


def date(text):
    return ql.Date(text, '%Y-%m-%d')


def day_counter(name, schedule):
    if name == 'ACT/ACT-ICMA':
        return ql.ActualActual(ql.ActualActual.ISMA, schedule)
    return {
        '30E/360': ql.Thirty360(ql.Thirty360.European),
        '30/360': ql.Thirty360(ql.Thirty360.BondBasis),
        'ACT/360': ql.Actual360(),
        'ACT/365F': ql.Actual365Fixed(),
    }[name]


def iso(d):
    return '%04d-%02d-%02d' % (d.year(), d.month(), d.dayOfMonth())


def figures(case):
    issue, maturity, settlement = date(case['issue']), date(case['maturity']), date(case['settlement'])
    frequency = FREQUENCIES[case['frequency']]
    ql.Settings.instance().evaluationDate = settlement
    end_of_month = maturity == ql.Date.endOfMonth(maturity)
    schedule = ql.Schedule(issue, maturity, ql.Period(frequency), ql.NullCalendar(), ql.Unadjusted,
                           ql.Unadjusted, ql.DateGeneration.Backward, end_of_month)
    dc = day_counter(case['dayCount'], schedule)
    coupon = float(case['coupon']) / 100
    bond = ql.FixedRateBond(0, 100.0, schedule, [coupon], dc, ql.Unadjusted, 100.0, issue)
    accrued = bond.accruedAmount(settlement)
    if 'yield' in case:
        y = float(case['yield']) / 100
        clean = ql.BondFunctions.cleanPrice(bond, y, dc, ql.Compounded, frequency, settlement)
    else:
        clean = float(case['cleanPrice'])
        y = ql.BondFunctions.bondYield(bond, clean, dc, ql.Compounded, frequency, settlement, 1e-15, 1000, 0.05)
    coupons = [cf.amount() for cf in bond.cashflows() if ql.as_coupon(cf) is not None]
    return {
        'schedule': [iso(d) for d in schedule],
        'coupons': [repr(c) for c in coupons],
        'cleanPrice': repr(clean),
        'accruedInterest': repr(accrued),
        'dirtyPrice': repr(clean + accrued),
        'yield': repr(y * 100),
    }


def main():
    cases = json.load(sys.stdin)['cases']
    json.dump({'quantlib': ql.__version__, 'results': [figures(c) for c in cases]}, sys.stdout)


main()
