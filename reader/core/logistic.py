"""The ranking's logistic regression, fitted without scikit-learn.

scikit-learn's `LogisticRegression(C=C)` (L2 penalty, an unpenalised intercept, the lbfgs
solver) minimises, with sample weights s summing to S,

    sum_i s_i * (log(1 + exp(z_i)) - y_i * z_i) / S  +  |w|^2 / (2 * C * S),   z = X w + b

by scipy's L-BFGS-B from zeros (gradient tolerance 1e-4, function tolerance 64 machine
epsilons, 50 line-search steps). This is that objective and that call, so the weights are the
same to the solver's tolerance (tests/test_logistic.py: the same order as scikit-learn's), while
importing scipy.optimize costs a fraction of scikit-learn's import (~1.7 s on a quiet machine).
"""

from __future__ import annotations

from typing import Any

TOLERANCE = 1e-4  # scikit-learn's default `tol`: the largest gradient entry at the end
MAX_ITERATIONS = 1000


def fit(rows: Any, labels: Any, sample_weights: Any, c: float) -> tuple[Any, float]:
    """(weights per column, intercept) of the model of `labels` (1 or 0) from the csr rows."""
    import numpy as np
    from scipy.optimize import minimize  # type: ignore[import-untyped, unused-ignore]

    # scikit-learn casts the weights and labels to the rows' type (float32 here) before fitting.
    weights = np.asarray(sample_weights, dtype=rows.dtype).astype(np.float64)
    targets = np.asarray(labels, dtype=rows.dtype).astype(np.float64)
    total = float(weights.sum())
    penalty = 1.0 / (c * total)
    transposed = rows.T.tocsr()
    columns = rows.shape[1]

    def loss_and_gradient(point: Any) -> tuple[float, Any]:
        coef, intercept = point[:columns], point[columns]
        raw = rows @ coef + intercept
        # log(1 + exp(z)) and the logistic function, without overflow at either end
        loss = float(weights @ (np.logaddexp(0.0, raw) - targets * raw)) / total + 0.5 * penalty * float(coef @ coef)
        exp_neg = np.exp(-np.abs(raw))
        probability = np.where(raw >= 0, 1.0 / (1.0 + exp_neg), exp_neg / (1.0 + exp_neg))
        pointwise = weights * (probability - targets) / total
        gradient = np.empty(columns + 1)
        gradient[:columns] = transposed @ pointwise + penalty * coef
        gradient[columns] = pointwise.sum()
        return loss, gradient

    result = minimize(
        loss_and_gradient,
        np.zeros(columns + 1),
        method="L-BFGS-B",
        jac=True,
        options={"maxiter": MAX_ITERATIONS, "maxls": 50, "gtol": TOLERANCE, "ftol": 64 * np.finfo(float).eps},
    )
    return result.x[:columns], float(result.x[columns])
