// Package house holds no code: its tests keep the house rules of the
// module true (issue 36), so a change that breaks one fails `make unit`
// with the place to fix:
//
//   - no non-test Go file above 800 lines, no function above 120 lines;
//   - results, the run-folder schema and its IO, exports at most 60 names;
//   - no package under models/ imports the run machinery (internal/…,
//     live/…, app);
//   - no package under live/ imports the simulator (internal/twin,
//     models/flink, models/kafka);
//   - a run's policy is built in one place (internal/run.NewPolicy) and
//     its capabilities are checked in one place (internal/run.Prepare);
//   - every package has a doc.go.
package house
