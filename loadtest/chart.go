package loadtest

import (
	"fmt"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// writeChart draws the run over time in one PNG: booking latency percentiles
// (by send second) above, offered, sent, answered and booked per second below.
func writeChart(r *Report, path string) error {
	lat, err := linePlot("booking latency by send time", "ms", true, r.Series, map[string]func(SecondLine) float64{
		"p50": func(s SecondLine) float64 { return s.P50 },
		"p90": func(s SecondLine) float64 { return s.P90 },
		"p99": func(s SecondLine) float64 { return s.P99 },
	}, []string{"p50", "p90", "p99"})
	if err != nil {
		return err
	}
	thr, err := linePlot("throughput", "per second", false, r.Series, map[string]func(SecondLine) float64{
		"offered clicks": func(s SecondLine) float64 { return s.Offered },
		"sent (all)":     func(s SecondLine) float64 { return float64(s.Sent) },
		"answered":       func(s SecondLine) float64 { return float64(s.Answered) },
		"booked":         func(s SecondLine) float64 { return float64(s.Booked) },
	}, []string{"offered clicks", "sent (all)", "answered", "booked"})
	if err != nil {
		return err
	}
	img := vgimg.New(vg.Points(960), vg.Points(720))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(8), PadBottom: vg.Points(8),
		PadLeft: vg.Points(8), PadRight: vg.Points(8), PadY: vg.Points(16)}
	canvases := plot.Align([][]*plot.Plot{{lat}, {thr}}, tiles, dc)
	lat.Draw(canvases[0][0])
	thr.Draw(canvases[1][0])
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

// linePlot draws one line per named series over the run's seconds.
// skipZero leaves out seconds without a value (no booking sent then), so
// that they show as gaps bridged, not as drops to zero.
func linePlot(title, unit string, skipZero bool, secs []SecondLine, value map[string]func(SecondLine) float64, order []string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "seconds since start"
	p.Y.Label.Text = unit
	p.Y.Min = 0
	p.Legend.Top = true
	var args []any
	for _, name := range order {
		var pts plotter.XYs
		for _, s := range secs {
			if v := value[name](s); v > 0 || !skipZero {
				pts = append(pts, plotter.XY{X: float64(s.Second), Y: v})
			}
		}
		args = append(args, name, pts)
	}
	if err := plotutil.AddLines(p, args...); err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	return p, nil
}
