// Command docgen writes every generated block and figure of README.md and
// docs/ from committed scenarios and results (make docs), or with -check
// only names those that drifted (exit 1). See internal/docgen.
package main
