package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// legendWidth is the strip right of the panels that holds their legends, so
// that no legend covers the lines it names.
const legendWidth = 170

// openingColor marks the instant the slots open in every panel; the lines'
// colors stay clear of it.
var (
	openingColor = color.RGBA{R: 200, G: 0, B: 0, A: 255}
	lineColors   = []color.Color{
		color.RGBA{R: 31, G: 119, B: 180, A: 255},  // blue
		color.RGBA{R: 44, G: 160, B: 44, A: 255},   // green
		color.RGBA{R: 255, G: 127, B: 14, A: 255},  // orange
		color.RGBA{R: 148, G: 103, B: 189, A: 255}, // purple
		color.RGBA{R: 140, G: 86, B: 75, A: 255},   // brown
	}
)

// chartLine is one named line of a panel.
type chartLine struct {
	name string
	pts  plotter.XYs
}

// openingScenarios are the scenarios whose clicks begin as their slots open
// (loadtest.ScenarioOpening and ScenarioOpeningAll): their chart marks that
// instant.
var openingScenarios = map[string]bool{"opening": true, "opening-all": true}

// panel is one chart of the stack: its plot and the legend drawn beside it.
type panel struct {
	plot   *plot.Plot
	legend plot.Legend
}

// writeChart draws the run over time in one PNG of panels sharing the time
// axis: booking latency percentiles (log scale, by send second), the
// requests per second, and the bookings per second on a scale of their own
// (a few hundred places are invisible next to thousands of clicks); the
// opening-all scenario adds the database's confirmations and the backlog.
// Where slots open as the clicks begin, a red line marks that instant.
func writeChart(r *Report, path string) error {
	opening := openingScenarios[r.Scenario]
	n := len(r.Series)
	sec := func(s SecondLine) int { return s.Second }
	panels := []panel{
		newPanel("booking latency by send time", "ms (log scale)", true, opening, n, []chartLine{
			{"p50", bySecond(r.Series, sec, func(s SecondLine) float64 { return s.P50 }, true)},
			{"p90", bySecond(r.Series, sec, func(s SecondLine) float64 { return s.P90 }, true)},
			{"p99", bySecond(r.Series, sec, func(s SecondLine) float64 { return s.P99 }, true)},
		}),
		newPanel("requests", "per second", false, opening, n, []chartLine{
			{"clicks offered", bySecond(r.Series, sec, func(s SecondLine) float64 { return s.Offered }, false)},
			{"clicks sent (new keys)", bySecond(r.Series, sec, func(s SecondLine) float64 { return float64(s.SentClicks) }, false)},
			{"repeats sent (same key)", bySecond(r.Series, sec, func(s SecondLine) float64 { return float64(s.SentRepeats) }, false)},
			{"slot-list reads sent", bySecond(r.Series, sec, func(s SecondLine) float64 { return float64(s.SentReads) }, false)},
			{"answered (all three)", bySecond(r.Series, sec, func(s SecondLine) float64 { return float64(s.Answered) }, false)},
		}),
		newPanel("bookings", "per second", false, opening, n, []chartLine{
			{"booked (201/200)", bySecond(r.Series, sec, func(s SecondLine) float64 { return float64(s.Booked) }, false)},
		}),
	}
	if r.Morning != nil {
		panels = append(panels, morningPanel(r.Morning))
	}
	img := vgimg.New(vg.Points(1000), vg.Points(300*float64(len(panels))))
	drawPanels(draw.New(img), panels)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("chart: %w", err)
	}
	return f.Close()
}

// drawPanels stacks the panels with aligned axes on the left and puts each
// legend in the strip to the right of its panel.
func drawPanels(dc draw.Canvas, panels []panel) {
	plots := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		plots[i] = []*plot.Plot{p.plot}
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Points(8), PadBottom: vg.Points(8),
		PadLeft: vg.Points(8), PadRight: vg.Points(8), PadY: vg.Points(16)}
	area := draw.Crop(dc, 0, -vg.Points(legendWidth), 0, 0)
	canvases := plot.Align(plots, tiles, area)
	for i, p := range panels {
		c := canvases[i][0]
		p.plot.Draw(c)
		side := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Max.X + vg.Points(12), Y: c.Min.Y},
			Max: vg.Point{X: dc.Max.X - vg.Points(4), Y: c.Max.Y - vg.Points(24)},
		}}
		p.legend.Draw(side)
	}
}

// newPanel draws the lines over seconds 0 to n-1, on a log scale when logY
// says so, and marks the opening when there is one.
func newPanel(title, unit string, logY, opening bool, n int, lines []chartLine) panel {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "seconds since the first click"
	p.Y.Label.Text = unit
	p.X.Tick.Marker = wholeTicks{}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	} else {
		p.Y.Min, p.Y.Tick.Marker = 0, wholeTicks{}
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	for i, cl := range lines {
		if len(cl.pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(cl.pts)
		if err != nil { // only for NaN or infinite values, which the series never hold
			continue
		}
		l.Color, l.Dashes, l.Width = lineColors[i%len(lineColors)], plotutil.Dashes(i), vg.Points(1.5)
		p.Add(l)
		legend.Add(cl.name, l)
	}
	if logY {
		fitLogRange(p)
	} else {
		p.Y.Max *= 1.1 // the top line clear of the title
	}
	// Every panel spans the whole run, whichever seconds have values, so
	// that their time axes match.
	p.X.Min, p.X.Max = 0, math.Max(float64(n-1), 1)
	if opening {
		m := openingMark{}
		p.Add(m)
		legend.Add("slots open (7:00)", m)
		p.X.Min = -math.Max(0.3, 0.02*float64(n)) // the mark stands clear of the axis
	}
	return panel{plot: p, legend: legend}
}

// wholeTicks labels a linear axis with plain numbers ("5000", not
// "5000.00"; "0.5" where the steps are that fine).
type wholeTicks struct{}

// Ticks implements plot.Ticker.
func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			// Six decimals hide the float noise of a step like 0.1.
			ticks[i].Label = strconv.FormatFloat(math.Round(t.Value*1e6)/1e6, 'f', -1, 64)
		}
	}
	return ticks
}

// bySecond are a series' values by second; skipZero leaves out seconds
// without a value (no booking sent then), so that they show as gaps bridged,
// not as drops to zero.
func bySecond[T any](secs []T, second func(T) int, value func(T) float64, skipZero bool) plotter.XYs {
	var pts plotter.XYs
	for _, s := range secs {
		if v := value(s); v > 0 || !skipZero {
			pts = append(pts, plotter.XY{X: float64(second(s)), Y: v})
		}
	}
	return pts
}

// morningPanel draws the opening-all run's confirmed bookings per second
// (database) and its backlog at each second's end.
func morningPanel(m *Morning) panel {
	sec := func(s MorningLine) int { return s.Second }
	return newPanel("after the opening", "per second / clicks", false, true, len(m.Seconds), []chartLine{
		{"confirmed/s (database)", bySecond(m.Seconds, sec, func(s MorningLine) float64 { return float64(s.Confirmed) }, false)},
		{"backlog (clicks waiting)", bySecond(m.Seconds, sec, func(s MorningLine) float64 { return float64(s.Backlog) }, false)},
	})
}

// fitLogRange spans whole decades around the values, from at least 0.01
// ms, so that a log axis has ticks at both ends (and a range at all when
// there are no values).
func fitLogRange(p *plot.Plot) {
	lo, hi := p.Y.Min, p.Y.Max
	if math.IsInf(lo, 0) || lo <= 0 {
		lo, hi = 0.1, 1
	}
	p.Y.Min = math.Max(0.01, math.Pow(10, math.Floor(math.Log10(lo))))
	p.Y.Max = math.Max(p.Y.Min*10, math.Pow(10, math.Ceil(math.Log10(hi))))
	p.Y.Min *= 0.999 // rounding must not drop the lowest decade's label
}

// openingMark is a vertical line at second 0, when the opening scenario's
// slots are open and its clicks begin.
type openingMark struct{}

func (openingMark) style() draw.LineStyle {
	return draw.LineStyle{Color: openingColor, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
}

// Plot implements plot.Plotter: the line spans the panel's data area.
func (m openingMark) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(0)
	c.StrokeLine2(m.style(), x, c.Min.Y, x, c.Max.Y)
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (m openingMark) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(m.style(), c.Min.X, y, c.Max.X, y)
}
