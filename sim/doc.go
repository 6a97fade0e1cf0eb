// Package sim is the discrete-event engine under the twin: a clock in seconds
// on github.com/fschuetz04/simgo, one-shot, periodic and cancellable timers,
// named random streams derived from one root seed, and the units (durations,
// rates, sizes, bandwidths) that scenario files are written in.
//
// Models schedule callbacks rather than simgo processes: a callback costs one
// heap entry, a process costs a goroutine switch per wait, and the twin's
// speed target (a simulated day in well under a second) needs the former.
package sim
