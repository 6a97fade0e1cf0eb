package docgen

// readmeBlocks are the generated blocks of README.md.
func readmeBlocks() []Block {
	return nil
}
