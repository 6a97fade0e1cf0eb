// Package suggest finds the known names a mistyped one may have meant, for
// the "did you mean …?" of error messages: an unknown scenario field
// (decode.UnknownFieldError), an unknown figure or column (statistics.NameError,
// results.ColumnError).
package suggest
