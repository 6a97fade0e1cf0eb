// Package check is `streamtwin check`: the regression check of a policy
// change. It runs a list of reference scenarios (every run of each, or the
// variants the list names), optionally with every scenario's and variant's
// policy swapped for the one under test, compares each run's QoS figures
// with the scenario's committed reference within its tolerance file, and
// reports, figure by figure, what got better or worse. With Update it
// rewrites the references instead.
//
// One job: run, compare, report. The comparison is results/compare's
// (Compare, Tolerances, the tolerance file format, reference files); this
// package only picks the QoS figures out of it and says which way they
// moved: for every one of them lower is better.
//
// The list file (docs/check.md):
//
//	tolerance: tolerance.yaml            # optional: for entries without their own
//	scenarios:
//	  - scenario: scenarios/demo.yaml    # paths are relative to the list file
//	    reference: results/reference/demo.json
//	  - scenario: scenarios/ci-variants.yaml
//	    reference: results/reference/ci-variants.json
//	    tolerance: ci-variants.tolerance.yaml   # optional
//	    variants: [ci10, ci60]                  # optional: only these runs
//	    name: ci-short                          # optional: default the reference's file name
//
// Without a list, the set is every results/reference/*.json whose source
// scenario exists (DefaultList). A reference's tolerance file is, in order:
// the entry's tolerance:, the list's tolerance:, <reference>.tolerance.yaml
// beside the reference (results/reference/demo.tolerance.yaml), else
// compare.DefaultTolerances (5 %).
//
// Errors of the input (the list, a scenario, a reference, a tolerance file,
// the policy) are *InputError; anything else is a run that failed.
//
// It imports internal/scenario, models/policy, internal/profile (the Khaos
// models a scenario's own policy may need), internal/twin (the runs) and
// results/compare; never app.
package check
