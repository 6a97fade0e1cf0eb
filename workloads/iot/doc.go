// Package iot generates the IoT-vehicles (traffic monitoring) input stream of
// the dos-group iot_vehicles_experiment producer (Generator.java,
// Vehicles.java; see docs/reference/workloads.md §2.3–2.4).
//
// Vehicles drive fewest-hop routes between two random distinct nodes of the
// Berlin-Mitte road graph (embedded, DefaultGraph), at a speed drawn per
// road segment from U{10..79} km/h, and report one position per second as a
// JSON line
//
//	{"lp":"KA-XY 4711","pt":{"lt":52.51534,"lg":13.38443},"ts":1630930000000}
//
// The driver is second-based like the original: each second the caller
// passes the trace's target number of active vehicles; missing vehicles are
// spawned, none are killed, so the count decays as trips end when the target
// falls. Events per second ≈ active vehicles.
//
// Choices where the original is not reproduced exactly:
//   - Segment lengths are haversine distances on a sphere of radius
//     EarthRadius (the original uses a WGS84 geodesic); positions are
//     interpolated linearly in lat/lon between the segment's end nodes.
//   - Among several fewest-hop routes, BFS in file edge order picks the
//     first found; JGraphT's Dijkstra may break ties differently.
//   - Randomness is math/rand/v2 PCG, not java.util.Random, so streams match
//     the original in distribution, not in values.
//   - lt/lg are printed with strconv's shortest float32 representation, which
//     equals Java's Float.toString except where old JDKs (< 19) print a
//     non-shortest digit string.
//
// The hot path copies pre-encoded bytes only: positions depend on (edge,
// speed, step) alone because every segment restarts at its node, so each is
// formatted once and shared by all trips.
package iot
