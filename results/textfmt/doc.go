// Package textfmt is how streamtwin writes numbers and words for people:
// the one number format of every printed table and message (Number, Count,
// Figure, Signed, a fitted model's Linear terms), event times (EventTime),
// counts with their noun (Plural) and aligned text tables (WriteAligned).
// Files keep full precision; only what people read goes through it.
//
// Of streamtwin it imports package results only, for the names of the
// summary figures that are counts.
package textfmt
