/**
 * The learned rankers' model (`search-ranker-train.ts`, `search-ranker-hybrid.ts`): logistic
 * regression by batch gradient descent with L2, the classes balanced (a query has a few relevant
 * candidates among dozens), over the features `used` leaves in (the ablations).
 */

/** A candidate's features and whether it is relevant (1) or not (0). */
export interface Example {
  x: number[];
  y: number;
}

/** The model's score of `x`: the weighted sum of the features in use. */
export function score(w: number[], x: number[], used: boolean[]): number {
  let sum = 0;
  for (let i = 0; i < w.length; i++) if (used[i]) sum += w[i]! * x[i]!;
  return sum;
}

/** Weights learnt from `rows` (one per feature; 0 for the features left out). */
export function trainLogistic(
  rows: Example[],
  used: boolean[],
  epochs: number,
  rate = 0.5,
  l2 = 1e-3,
): number[] {
  const w: number[] = new Array(used.length).fill(0);
  const pos = rows.filter((r) => r.y === 1).length;
  const weightPos = (rows.length - pos) / Math.max(1, pos);
  for (let e = 0; e < epochs; e++) {
    const grad: number[] = new Array(w.length).fill(0);
    for (const { x, y } of rows) {
      const p = 1 / (1 + Math.exp(-score(w, x, used)));
      const g = (p - y) * (y === 1 ? weightPos : 1);
      for (let i = 0; i < w.length; i++) if (used[i]) grad[i]! += g * x[i]!;
    }
    for (let i = 0; i < w.length; i++) w[i]! -= rate * (grad[i]! / rows.length + l2 * w[i]!);
  }
  return w;
}
