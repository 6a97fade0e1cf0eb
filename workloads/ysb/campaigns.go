package ysb

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Sizes of the core.clj setup: 100 campaigns (-n), 10 ads each.
const (
	NumCampaigns   = 100
	AdsPerCampaign = 10
	NumAds         = NumCampaigns * AdsPerCampaign
)

// PCG stream selectors, so that Campaigns and Generator built from the same
// seed draw from independent streams (and never produce the same UUIDs).
const (
	campaignStream  = 0x5953425f43414d50 // "YSB_CAMP"
	generatorStream = 0x5953425f47454e45 // "YSB_GENE"
)

// Campaigns is the fixed ad/campaign universe: ad i belongs to campaign
// i/AdsPerCampaign, as in core.clj, where each campaign gets 10 fresh ads.
type Campaigns struct {
	campaigns [NumCampaigns]string
	ads       [NumAds]string
	adIndex   map[string]int
}

// NewCampaigns makes 100 campaign and 1000 ad UUIDs (version 4 format),
// deterministic for seed. Campaign UUIDs are drawn first, then ads in
// index order.
func NewCampaigns(seed uint64) *Campaigns {
	src := rand.NewPCG(seed, campaignStream)
	c := &Campaigns{adIndex: make(map[string]int, NumAds)}
	for i := range c.campaigns {
		c.campaigns[i] = newUUID(src)
	}
	for i := range c.ads {
		c.ads[i] = newUUID(src)
		c.adIndex[c.ads[i]] = i
	}
	return c
}

// CampaignID returns the UUID of campaign j, 0 ≤ j < NumCampaigns.
func (c *Campaigns) CampaignID(j int) string { return c.campaigns[j] }

// AdID returns the UUID of ad i, 0 ≤ i < NumAds.
func (c *Campaigns) AdID(i int) string { return c.ads[i] }

// CampaignIndex returns the index of the campaign ad i belongs to.
func CampaignIndex(adIndex int) int { return adIndex / AdsPerCampaign }

// Campaign returns the campaign UUID of ad i, 0 ≤ i < NumAds.
func (c *Campaigns) Campaign(adIndex int) string { return c.campaigns[CampaignIndex(adIndex)] }

// AdIndex returns the index of the ad with UUID adID, or false if unknown.
func (c *Campaigns) AdIndex(adID string) (int, bool) {
	i, ok := c.adIndex[adID]
	return i, ok
}

// CampaignOf returns the campaign UUID of the ad with UUID adID — the join
// the YSB job performs — or false if the ad is unknown (the job drops those).
func (c *Campaigns) CampaignOf(adID string) (string, bool) {
	i, ok := c.adIndex[adID]
	if !ok {
		return "", false
	}
	return c.Campaign(i), true
}

// AppendMapping appends the ad → campaign table, the contents of core.clj's
// Redis "SET ad_id campaign_id" keys, as JSON lines in ad index order:
//
//	{"ad_id":"<ad uuid>","campaign_id":"<campaign uuid>"}\n
//
// 1000 lines; consecutive groups of 10 lines share a campaign.
func (c *Campaigns) AppendMapping(dst []byte) []byte {
	for i, ad := range c.ads {
		dst = append(dst, `{"ad_id":"`...)
		dst = append(dst, ad...)
		dst = append(dst, `","campaign_id":"`...)
		dst = append(dst, c.Campaign(i)...)
		dst = append(dst, "\"}\n"...)
	}
	return dst
}

// newUUID formats 128 random bits as a lowercase RFC 4122 version-4 UUID,
// the format of java.util.UUID/randomUUID used by core.clj.
func newUUID(src *rand.PCG) string {
	hi, lo := src.Uint64(), src.Uint64()
	hi = hi&^0xf000 | 0x4000                 // version 4
	lo = lo&^(0xc000_0000_0000_0000) | 1<<63 // variant 10xx
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffff_ffff_ffff)
}

// uintn returns a uniform value in [0, n) by Lemire's multiply-shift with
// rejection: exact, and independent of rand.Rand's (unstable) algorithms.
func uintn(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}
