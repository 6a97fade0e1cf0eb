package docgen

// figuresBlocks are the generated blocks of docs/figures.md.
func figuresBlocks() []Block {
	return nil
}
