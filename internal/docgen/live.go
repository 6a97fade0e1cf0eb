package docgen

// liveBlocks are the generated blocks of docs/live.md.
func liveBlocks() []Block {
	return nil
}
