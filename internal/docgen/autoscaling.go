package docgen

// autoscalingBlocks are the generated blocks of docs/autoscaling.md.
func autoscalingBlocks() []Block {
	return nil
}
