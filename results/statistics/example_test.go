package statistics_test

import (
	"fmt"

	"github.com/streamtwin/streamtwin/results/statistics"
)

// Quantile interpolates linearly between order statistics: the median of
// four values lies halfway between the middle two.
func ExampleQuantile() {
	fmt.Println(statistics.Quantile([]float64{4, 1, 3, 2}, 0.5))
	fmt.Printf("%.2f\n", statistics.Quantile([]float64{1, 2, 3, 4}, 0.99))
	// Output:
	// 2.5
	// 3.97
}

// MeanCI is the mean with the half-width of its 95 % Student-t confidence
// interval and the sample standard deviation.
func ExampleMeanCI() {
	mean, half, std := statistics.MeanCI([]float64{10, 12, 14})
	fmt.Printf("%.1f ± %.3f (std %.1f)\n", mean, half, std)
	// Output:
	// 12.0 ± 4.968 (std 2.0)
}
