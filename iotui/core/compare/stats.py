"""The statistics behind compare's verdicts, in plain Python (no scipy).

Welch's t-test on per-interval values, with each run's sample count
shrunk to an *effective* count when consecutive intervals are correlated
(a slow device stays slow for several seconds, so 30 one-second samples
carry less than 30 samples' worth of information). ``docs/compare.md``
explains the choice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Lag-1 autocorrelation is clamped to this, so n_eff never collapses to ~0.
MAX_AUTOCORRELATION = 0.95


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def sample_variance(values: list[float]) -> float:
    """Unbiased (n - 1) variance; 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    centre = mean(values)
    return sum((v - centre) ** 2 for v in values) / (len(values) - 1)


def lag1_autocorrelation(values: list[float]) -> float:
    """Correlation of each interval with the next; 0 when undefined."""
    if len(values) < 3:
        return 0.0
    centre = mean(values)
    denominator = sum((v - centre) ** 2 for v in values)
    if denominator == 0:
        return 0.0
    numerator = sum((a - centre) * (b - centre) for a, b in zip(values, values[1:]))
    return numerator / denominator


def effective_sample_size(values: list[float]) -> float:
    """n (1 - r) / (1 + r) for positive lag-1 autocorrelation r (AR(1) approximation).

    Negative autocorrelation would *raise* the count; it is ignored, which
    keeps the test conservative. Never below 2 when n >= 2.
    """
    count = len(values)
    r = min(max(lag1_autocorrelation(values), 0.0), MAX_AUTOCORRELATION)
    return max(count * (1 - r) / (1 + r), min(count, 2))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < 3e-14:
            break
    return h


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom."""
    if math.isnan(t) or df <= 0:
        return 1.0
    if math.isinf(t):
        return 0.0
    return regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


@dataclass(frozen=True)
class WelchResult:
    """Welch's t-test of b against a on interval values."""

    mean_a: float
    mean_b: float
    n_eff_a: float
    n_eff_b: float
    t: float
    df: float
    p_value: float


def welch_test(values_a: list[float], values_b: list[float]) -> WelchResult:
    """Two-sided Welch's t-test using effective sample sizes (see module docstring)."""
    mean_a, mean_b = mean(values_a), mean(values_b)
    n_a, n_b = effective_sample_size(values_a), effective_sample_size(values_b)
    var_a, var_b = sample_variance(values_a), sample_variance(values_b)
    term_a, term_b = var_a / n_a, var_b / n_b
    standard_error_sq = term_a + term_b
    if standard_error_sq == 0:
        # Both runs perfectly steady: any difference is real, none is noise.
        p_value = 1.0 if mean_a == mean_b else 0.0
        t = 0.0 if mean_a == mean_b else math.copysign(math.inf, mean_b - mean_a)
        return WelchResult(mean_a, mean_b, n_a, n_b, t, math.inf, p_value)
    t = (mean_b - mean_a) / math.sqrt(standard_error_sq)
    denominator = 0.0
    if term_a:
        denominator += term_a**2 / max(n_a - 1, 1e-9)
    if term_b:
        denominator += term_b**2 / max(n_b - 1, 1e-9)
    df = standard_error_sq**2 / denominator if denominator else math.inf
    return WelchResult(mean_a, mean_b, n_a, n_b, t, df, t_two_sided_p(t, df) if math.isfinite(df) else _normal_p(t))


def _normal_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))
