// Command go-policy is streamtwin with one more policy: load-ci, from
// package loadci. Registering a policy and calling app.Main is all a Go
// policy needs; every command then knows it, in the twin and live:
//
//	go run ./examples/go-policy run examples/go-policy/demo-load-ci.yaml --out runs/load-ci
//	go run ./examples/go-policy live run examples/go-policy/demo-load-ci.yaml
//	go run ./examples/go-policy check --policy '{name: load-ci, high_rate: 80000}'
package main
