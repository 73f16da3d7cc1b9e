package report_test

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"termin/loadtest"
	"termin/loadtest/report"
)

// openingReport is an opening's shape: 5,000 clicks/s for 30 s, the places
// taken in the first seconds, a latency spike at the opening.
func openingReport(dir string) *report.Report {
	r := &report.Report{Scenario: loadtest.ScenarioOpening, Dir: dir}
	booked := []int{96, 24, 7, 3}
	for s := range 32 {
		line := report.SecondLine{Second: s, Offered: 5000, Sent: 6150, SentClicks: 5000, SentRepeats: 150, SentReads: 1000,
			Answered: 6150, P50: 0.2, P90: 0.9, P99: 12}
		if s < len(booked) {
			line.Booked, line.P99 = booked[s], 240
		}
		if s >= 30 {
			line.Offered, line.Sent, line.Answered, line.P50, line.P90, line.P99 = 0, 40, 40, 0, 0, 0
			line.SentClicks, line.SentRepeats, line.SentReads = 0, 40, 0
		}
		r.Series = append(r.Series, line)
	}
	return r
}

// TestChartDrawsTheOpening: the chart of an opening is a PNG whose right
// strip, beside the panels, holds the legends, the opening's red mark among
// them, while the panels' data keep the rest.
func TestChartDrawsTheOpening(t *testing.T) {
	dir := t.TempDir()
	if err := openingReport(dir).Save(); err != nil {
		t.Fatalf("save: %v", err)
	}
	f, err := os.Open(filepath.Join(dir, "chart.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("chart.png: %v", err)
	}
	b := img.Bounds()
	red := func(x0, x1 int) (n int) {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := x0; x < x1; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r>>8 > 180 && g>>8 < 40 && bl>>8 < 40 {
					n++
				}
			}
		}
		return n
	}
	strip := b.Max.X - b.Dx()*170/1000
	if n := red(strip, b.Max.X); n == 0 {
		t.Error("no legend entry for the opening in the strip right of the panels")
	}
	if n := red(b.Min.X, strip); n == 0 {
		t.Error("no opening mark in the panels")
	}
}
