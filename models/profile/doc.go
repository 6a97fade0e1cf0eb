// Package profile runs Khaos's offline phases on the twin: steady-state
// failure points from the recorded input (phase 1), chaos experiments on
// parallel job copies with evenly spaced checkpoint intervals, each killed
// at every point just before a checkpoint (phase 2), and the latency and
// recovery models fitted to what they measured (phase 3).
package profile
