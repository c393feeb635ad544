// The GPU world's step, one kernel per #define KERNEL_... (gpu_world.cpp builds each one;
// gpu_world.hpp says how the solve works). Every body adds up its contacts' impulses in the
// sorted order of the pair list, and there are no float atomics, so a step is the same on
// every run on a given GPU. Pair slots past the pairs found hold u_count (no body).

#if defined(KERNEL_INTEGRATE) || defined(KERNEL_NARROW) || defined(KERNEL_WALLS) || \
    defined(KERNEL_PUSH) || defined(KERNEL_GATHER_POSITION)
layout(std430, binding = 0) buffer Pos { float pos[]; };
DEFINE_VEC_ACCESS(pos)
#endif
#if defined(KERNEL_INTEGRATE) || defined(KERNEL_NARROW) || defined(KERNEL_WALLS) || \
    defined(KERNEL_IMPULSE) || defined(KERNEL_GATHER_VELOCITY) || defined(KERNEL_CHOOSE) || \
    defined(KERNEL_PAIRWISE) || defined(KERNEL_SAMPLE)
layout(std430, binding = 1) buffer Vel { float vel[]; };
DEFINE_VEC_ACCESS(vel)
#endif
#if defined(KERNEL_INTEGRATE) || defined(KERNEL_NARROW) || defined(KERNEL_WALLS) || \
    defined(KERNEL_PUSH) || defined(KERNEL_GATHER_POSITION)
layout(std430, binding = 2) readonly buffer Radius { float radius[]; };
#endif
// Per body: the inverse mass (0 = static) and the number of its contacts this substep.
layout(std430, binding = 3) buffer Mass { float mass[]; };
#if defined(KERNEL_PAD) || defined(KERNEL_NARROW) || defined(KERNEL_IMPULSE) || \
    defined(KERNEL_PUSH) || defined(KERNEL_WARM) || defined(KERNEL_CHOOSE) || \
    defined(KERNEL_PAIRWISE)
layout(std430, binding = 5) buffer PairA { uint pair_a[]; };
#endif
#if defined(KERNEL_PAD) || defined(KERNEL_NARROW) || defined(KERNEL_IMPULSE) || \
    defined(KERNEL_PUSH) || defined(KERNEL_B_ENTRIES) || defined(KERNEL_WARM) || \
    defined(KERNEL_CHOOSE) || defined(KERNEL_PAIRWISE)
layout(std430, binding = 6) buffer PairB { uint pair_b[]; };
#endif
#if defined(KERNEL_NARROW) || defined(KERNEL_IMPULSE) || defined(KERNEL_PUSH) || \
    defined(KERNEL_GATHER_VELOCITY) || defined(KERNEL_CHOOSE) || defined(KERNEL_PAIRWISE)
layout(std430, binding = 7) buffer ContactNormal { float normal[]; };
DEFINE_VEC_ACCESS(normal)
#endif
// Per pair slot: the bounce's target normal velocity, the accumulated impulse, 0 if not
// touching (1 approaching or resting, 2 separating: it does not split the masses), and the
// separation speed that pushes a resting penetration out over the next steps.
#if defined(KERNEL_NARROW) || defined(KERNEL_COUNT) || defined(KERNEL_IMPULSE) || \
    defined(KERNEL_PUSH) || defined(KERNEL_WARM) || defined(KERNEL_CHOOSE) || \
    defined(KERNEL_PAIRWISE)
layout(std430, binding = 8) buffer ContactState { vec4 state[]; };
#endif
// Per pair slot: this iteration's impulse (first float), or its position push (D floats).
#if defined(KERNEL_IMPULSE) || defined(KERNEL_GATHER_VELOCITY) || defined(KERNEL_PUSH) || \
    defined(KERNEL_GATHER_POSITION) || defined(KERNEL_WARM) || defined(KERNEL_PAIRWISE)
layout(std430, binding = 9) buffer ContactOut { float push[]; };
DEFINE_VEC_ACCESS(push)
#endif
// Per body, [first, end) of its slots: as the pair's a (slots in the sorted pair list) and
// as its b (entries of b_slot).
#if defined(KERNEL_RUNS) || defined(KERNEL_COUNT) || defined(KERNEL_GATHER_VELOCITY) || \
    defined(KERNEL_GATHER_POSITION) || defined(KERNEL_CHOOSE)
layout(std430, binding = 10) buffer RunsA { uvec2 runs_a[]; };
#endif
#if defined(KERNEL_COUNT) || defined(KERNEL_GATHER_VELOCITY) || defined(KERNEL_GATHER_POSITION) || \
    defined(KERNEL_CHOOSE)
layout(std430, binding = 11) readonly buffer RunsB { uvec2 runs_b[]; };
#endif
#if defined(KERNEL_B_ENTRIES) || defined(KERNEL_COUNT) || defined(KERNEL_GATHER_VELOCITY) || \
    defined(KERNEL_GATHER_POSITION) || defined(KERNEL_CHOOSE)
layout(std430, binding = 12) buffer BSlot { uint b_slot[]; };
#endif
#if defined(KERNEL_B_ENTRIES) || defined(KERNEL_RUNS)
layout(std430, binding = 13) buffer Keys { uint keys[]; };
#endif
// Per body, the one approaching contact it takes this iteration without gravity (or none).
#if defined(KERNEL_CHOOSE) || defined(KERNEL_PAIRWISE)
layout(std430, binding = 13) buffer Choice { uint choice[]; };
const uint kNoSlot = 0xFFFFFFFFu;
#endif
// Per body and wall (axis * 2 + side): touching (0 or 1), target, accumulated impulse.
#if defined(KERNEL_WALLS) || defined(KERNEL_GATHER_VELOCITY)
layout(std430, binding = 14) buffer Walls { float walls[]; };
#endif
#if defined(KERNEL_PAD) || defined(KERNEL_NARROW)
layout(std430, binding = 15) coherent buffer Counters {
    uint pair_count;  // found by the pair pass, also past the capacity
    uint test_count;
    uint contact_count;  // touching pairs of the last narrow phase
};
#endif

uniform VecD u_lo;  // the world's walls
uniform VecD u_hi;
uniform float u_restitution;
uniform float u_threshold;  // approach speeds below it rest rather than bounce

// Back inside the walls on every axis (the CPU world's keep_inside).
VecD keep_inside(VecD p, float r) {
    VecD lo = u_lo + r;
    VecD hi = u_hi - r;
    return mix(clamp(p, lo, hi), 0.5 * (u_lo + u_hi), greaterThan(lo, hi));
}

// Clamped accumulated impulses towards each contact's target, with or without gravity: an
// instantaneous impulse at the current approach (the CPU's way without gravity) would lose
// energy here, as a split mass stops an approach only in part.
float contact_impulse(float vn, float target, inout float accumulated, float k) {
    float total = max(accumulated + (target - vn) / k, 0.0);
    float j = total - accumulated;
    accumulated = total;
    return j;
}

#ifdef KERNEL_INTEGRATE
layout(std430, binding = 4) writeonly buffer Boxes { float boxes[]; };
uniform VecD u_dv;  // gravity * dt
uniform float u_dt;
uniform uint u_move;  // 0: the boxes of the bodies where they stand
void main() {
    FOR_EACH(i, u_count) {
        VecD p = LOAD_VEC(pos, i);
        float r = radius[i];
        if (u_move != 0u && mass[2u * i] > 0.0) {
            VecD v = LOAD_VEC(vel, i) + u_dv;
            p = keep_inside(p + v * u_dt, r);
            STORE_VEC(vel, i, v);
            STORE_VEC(pos, i, p);
        }
        for (int k = 0; k < DIM; ++k) {
            boxes[2u * DIM * i + k] = p[k] - r;
            boxes[2u * DIM * i + DIM + k] = p[k] + r;
        }
    }
}
#endif

#ifdef KERNEL_PAD
void main() {
    uint found = min(pair_count, u_slots);
    FOR_EACH(k, u_slots) {
        if (k >= found) {
            pair_a[k] = u_count;
            pair_b[k] = u_count;
        }
    }
}
#endif

#ifdef KERNEL_B_ENTRIES
void main() {
    FOR_EACH(k, u_slots) {
        keys[k] = pair_b[k];
        b_slot[k] = k;
    }
}
#endif

#ifdef KERNEL_RUNS
// The sorted keys' runs: where each body's first slot is and one past its last.
void main() {
    FOR_EACH(k, u_slots) {
        uint key = keys[k];
        if (key >= u_count) continue;
        if (k == 0u || keys[k - 1u] != key) runs_a[key].x = k;
        if (k + 1u == u_slots || keys[k + 1u] != key) runs_a[key].y = k + 1u;
    }
}
#endif

#ifdef KERNEL_NARROW
uniform uint u_keep;  // 1 in a later substep: resting contacts keep their impulse (same slots)
uniform float u_bias;  // position correction / dt with gravity, else 0
shared uint s_touching;
void main() {
    if (gl_LocalInvocationIndex == 0u) s_touching = 0u;
    barrier();
    uint touching = 0u;
    FOR_EACH(k, u_slots) {
        uint a = pair_a[k];
        uint b = pair_b[k];
        VecD n = VecD(0.0);
        vec4 s = vec4(0.0);
        if (a < u_count) {
            VecD d = LOAD_VEC(pos, b) - LOAD_VEC(pos, a);
            float reach = radius[a] + radius[b];
            float dist2 = dot(d, d);
            if (dist2 <= reach * reach) {
                float dist = sqrt(dist2);
                n[0] = 1.0;  // coincident centres: a fixed axis
                if (dist > 1e-12) n = d / dist;
                float vn = dot(LOAD_VEC(vel, b) - LOAD_VEC(vel, a), n);
                float target = bounce_target(vn, u_restitution, u_threshold);
                float kept = u_keep != 0u && target == 0.0 ? state[k].y : 0.0;
                // With gravity a pile rests on carried impulses: a separation speed for a
                // penetration past 2% of the radius lets the support grow over the steps
                // (a smaller allowance makes the pile jitter).
                float slop = 0.02 * min(radius[a], radius[b]);
                float bias = u_bias * max(reach - dist - slop, 0.0);
                s = vec4(target, kept, vn <= 0.0 ? 1.0 : 2.0, bias);
                ++touching;
            }
        }
        STORE_VEC(normal, k, n);
        state[k] = s;
    }
    atomicAdd(s_touching, touching);
    barrier();
    if (gl_LocalInvocationIndex == 0u) atomicAdd(contact_count, s_touching);
}
#endif

#ifdef KERNEL_COUNT
// Each body's touching contacts, the share its mass is split into.
void main() {
    FOR_EACH(i, u_count) {
        uint n = 0u;
        for (uint k = runs_a[i].x; k < runs_a[i].y; ++k) n += state[k].z == 1.0 ? 1u : 0u;
        for (uint e = runs_b[i].x; e < runs_b[i].y; ++e) n += state[b_slot[e]].z == 1.0 ? 1u : 0u;
        mass[2u * i + 1u] = float(max(n, 1u));
    }
}
#endif

#ifdef KERNEL_WALLS
// The walls each body touches, with their targets (the CPU solver's wall contacts).
void main() {
    FOR_EACH(i, u_count) {
        VecD p = LOAD_VEC(pos, i);
        VecD v = LOAD_VEC(vel, i);
        float r = radius[i];
        float slop = 0.01 * r;
        bool moves = mass[2u * i] > 0.0;
        for (int axis = 0; axis < DIM; ++axis) {
            for (int side = 0; side < 2; ++side) {
                float sign = side == 0 ? -1.0 : 1.0;
                bool touching = side == 0 ? p[axis] - r <= u_lo[axis] + slop
                                          : p[axis] + r >= u_hi[axis] - slop;
                uint w = (i * uint(2 * DIM) + uint(2 * axis + side)) * 3u;
                walls[w] = moves && touching ? 1.0 : 0.0;
                walls[w + 1u] = bounce_target(-v[axis] * sign, u_restitution, u_threshold);
                walls[w + 2u] = 0.0;
            }
        }
    }
}
#endif

#ifdef KERNEL_WARM
// Warm start (with gravity): a resting contact that was there last step starts from last
// step's impulse, found in last step's sorted pairs by a binary search in a's run; in a
// later substep it has it already. The impulse goes out to be gathered once.
layout(std430, binding = 4) readonly buffer PrevRuns { uvec2 prev_runs[]; };
layout(std430, binding = 13) readonly buffer PrevB { uint prev_b[]; };
layout(std430, binding = 14) readonly buffer PrevState { vec4 prev_state[]; };
uniform uint u_search;  // 1: look in last step's pairs; 0: keep this slot's impulse
void main() {
    FOR_EACH(k, u_slots) {
        vec4 s = state[k];
        float j = 0.0;
        if (s.z != 0.0 && s.x == 0.0) {
            if (u_search == 0u) {
                j = s.y;
            } else {
                uint a = pair_a[k];
                uint b = pair_b[k];
                uint lo = prev_runs[a].x;
                uint hi = prev_runs[a].y;
                while (lo < hi) {
                    uint mid = (lo + hi) >> 1u;
                    if (prev_b[mid] < b) {
                        lo = mid + 1u;
                    } else {
                        hi = mid;
                    }
                }
                if (lo < prev_runs[a].y && prev_b[lo] == b) j = prev_state[lo].y;
            }
        }
        state[k].y = j;
        push[DIM * k] = j;
    }
}
#endif

#ifdef KERNEL_IMPULSE
void main() {
    FOR_EACH(k, u_slots) {
        vec4 s = state[k];
        float j = 0.0;
        uint a = pair_a[k];
        uint b = pair_b[k];
        if (s.z != 0.0) {
            vec2 ma = vec2(mass[2u * a], mass[2u * a + 1u]);
            vec2 mb = vec2(mass[2u * b], mass[2u * b + 1u]);
            float k_split = ma.x * ma.y + mb.x * mb.y;
            if (k_split > 0.0) {
                float vn = dot(LOAD_VEC(vel, b) - LOAD_VEC(vel, a), LOAD_VEC(normal, k));
                j = contact_impulse(vn, max(s.x, s.w), s.y, k_split);
                state[k].xy = s.xy;
            }
        }
        push[DIM * k] = j;
    }
}
#endif

#ifdef KERNEL_CHOOSE
// Without gravity each contact is a two-body collision, as on the CPU, which conserves energy
// only when each body takes one at a time: so every body picks its fastest approaching
// contact (the first in slot order on a tie), and a contact both bodies picked is solved.
void main() {
    FOR_EACH(i, u_count) {
        uint best = kNoSlot;
        float best_vn = 0.0;
        if (mass[2u * i] > 0.0) {
            VecD v = LOAD_VEC(vel, i);
            for (uint k = runs_a[i].x; k < runs_a[i].y; ++k) {
                if (state[k].z == 0.0) continue;
                float vn = dot(LOAD_VEC(vel, pair_b[k]) - v, LOAD_VEC(normal, k));
                if (vn < best_vn) best_vn = vn, best = k;
            }
            for (uint e = runs_b[i].x; e < runs_b[i].y; ++e) {
                uint k = b_slot[e];
                if (state[k].z == 0.0) continue;
                float vn = dot(v - LOAD_VEC(vel, pair_a[k]), LOAD_VEC(normal, k));
                if (vn < best_vn) best_vn = vn, best = k;
            }
        }
        choice[i] = best;
    }
}
#endif

#ifdef KERNEL_PAIRWISE
void main() {
    FOR_EACH(k, u_slots) {
        float j = 0.0;
        if (state[k].z != 0.0) {
            uint a = pair_a[k];
            uint b = pair_b[k];
            float ia = mass[2u * a];
            float ib = mass[2u * b];
            bool agreed = (ia == 0.0 || choice[a] == k) && (ib == 0.0 || choice[b] == k);
            if (agreed && ia + ib > 0.0) {
                float vn = dot(LOAD_VEC(vel, b) - LOAD_VEC(vel, a), LOAD_VEC(normal, k));
                if (vn < 0.0) j = -(1.0 + u_restitution) * vn / (ia + ib);
            }
        }
        push[DIM * k] = j;
    }
}
#endif

#ifdef KERNEL_GATHER_VELOCITY
void main() {
    FOR_EACH(i, u_count) {
        float inv_mass = mass[2u * i];
        if (inv_mass == 0.0) continue;
        VecD sum = VecD(0.0);
        for (uint k = runs_a[i].x; k < runs_a[i].y; ++k) sum -= push[DIM * k] * LOAD_VEC(normal, k);
        for (uint e = runs_b[i].x; e < runs_b[i].y; ++e) {
            uint k = b_slot[e];
            sum += push[DIM * k] * LOAD_VEC(normal, k);
        }
        VecD v = LOAD_VEC(vel, i) + inv_mass * sum;
        // The walls are infinitely heavy and this body's own: solved in place.
        for (int w = 0; w < 2 * DIM; ++w) {
            uint at = (i * uint(2 * DIM) + uint(w)) * 3u;
            if (walls[at] == 0.0) continue;
            int axis = w / 2;
            float sign = (w & 1) == 0 ? -1.0 : 1.0;
            float away = -v[axis] * sign;
            float j;
            if (u_threshold == 0.0) {
                j = away < 0.0 ? -(1.0 + u_restitution) * away : 0.0;  // as a pair's collision
            } else {
                float accumulated = walls[at + 2u];
                j = contact_impulse(away, walls[at + 1u], accumulated, 1.0);
                walls[at + 2u] = accumulated;
            }
            v[axis] -= sign * j;
        }
        STORE_VEC(vel, i, v);
    }
}
#endif

#ifdef KERNEL_PUSH
uniform float u_beta;  // the share of the penetration removed per pass
void main() {
    FOR_EACH(k, u_slots) {
        VecD out_push = VecD(0.0);
        uint a = pair_a[k];
        uint b = pair_b[k];
        if (state[k].z != 0.0) {
            vec2 ma = vec2(mass[2u * a], mass[2u * a + 1u]);
            vec2 mb = vec2(mass[2u * b], mass[2u * b + 1u]);
            float k_split = ma.x * ma.y + mb.x * mb.y;
            VecD d = LOAD_VEC(pos, b) - LOAD_VEC(pos, a);
            float dist = length(d);
            float ra = radius[a];
            float rb = radius[b];
            float depth = ra + rb - dist;
            float slop = 0.005 * min(ra, rb);
            if (k_split > 0.0 && depth > slop) {
                VecD n = dist > 1e-12 ? d / dist : LOAD_VEC(normal, k);
                out_push = (u_beta * (depth - slop) / k_split) * n;
            }
        }
        STORE_VEC(push, k, out_push);
    }
}
#endif

#ifdef KERNEL_GATHER_POSITION
void main() {
    FOR_EACH(i, u_count) {
        float inv_mass = mass[2u * i];
        if (inv_mass == 0.0) continue;
        VecD sum = VecD(0.0);
        for (uint k = runs_a[i].x; k < runs_a[i].y; ++k) sum -= LOAD_VEC(push, k);
        for (uint e = runs_b[i].x; e < runs_b[i].y; ++e) sum += LOAD_VEC(push, b_slot[e]);
        STORE_VEC(pos, i, keep_inside(LOAD_VEC(pos, i) + inv_mass * sum, radius[i]));
    }
}
#endif

#ifdef KERNEL_SAMPLE
// Every u_stride-th body's speed (-1 for a static one), for the colour scale's percentile.
layout(std430, binding = 4) writeonly buffer Speeds { float speeds[]; };
uniform uint u_samples;
uniform uint u_stride;
void main() {
    FOR_EACH(t, u_samples) {
        uint i = t * u_stride;
        speeds[t] = mass[2u * i] == 0.0 ? -1.0 : length(LOAD_VEC(vel, i));
    }
}
#endif
