package docgen

// khaosBlocks are the generated blocks of docs/khaos.md.
func khaosBlocks() []Block {
	return nil
}
