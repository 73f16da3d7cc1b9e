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
	lat, err := linePlot("booking latency by send time", "ms", true, r.Series, secondOf, map[string]func(SecondLine) float64{
		"p50": func(s SecondLine) float64 { return s.P50 },
		"p90": func(s SecondLine) float64 { return s.P90 },
		"p99": func(s SecondLine) float64 { return s.P99 },
	}, []string{"p50", "p90", "p99"})
	if err != nil {
		return err
	}
	thr, err := linePlot("throughput", "per second", false, r.Series, secondOf, map[string]func(SecondLine) float64{
		"offered clicks": func(s SecondLine) float64 { return s.Offered },
		"sent (all)":     func(s SecondLine) float64 { return float64(s.Sent) },
		"answered":       func(s SecondLine) float64 { return float64(s.Answered) },
		"booked":         func(s SecondLine) float64 { return float64(s.Booked) },
	}, []string{"offered clicks", "sent (all)", "answered", "booked"})
	if err != nil {
		return err
	}
	rows := [][]*plot.Plot{{lat}, {thr}}
	if r.Morning != nil {
		m, err := morningPlot(r.Morning)
		if err != nil {
			return err
		}
		rows = append(rows, []*plot.Plot{m})
	}
	img := vgimg.New(vg.Points(960), vg.Points(360*float64(len(rows))))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadTop: vg.Points(8), PadBottom: vg.Points(8),
		PadLeft: vg.Points(8), PadRight: vg.Points(8), PadY: vg.Points(16)}
	canvases := plot.Align(rows, tiles, dc)
	for i, row := range rows {
		row[0].Draw(canvases[i][0])
	}
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
func linePlot[T any](title, unit string, skipZero bool, secs []T, second func(T) int, value map[string]func(T) float64, order []string) (*plot.Plot, error) {
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
				pts = append(pts, plotter.XY{X: float64(second(s)), Y: v})
			}
		}
		args = append(args, name, pts)
	}
	if err := plotutil.AddLines(p, args...); err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	return p, nil
}

// morningPlot draws the opening-all run's confirmed bookings per second
// (database) and its backlog at each second's end.
func morningPlot(m *Morning) (*plot.Plot, error) {
	const confirmed, backlog = "confirmed/s (database)", "backlog (clicks waiting)"
	return linePlot("after the opening", "per second / clicks", false, m.Seconds,
		func(s MorningLine) int { return s.Second }, map[string]func(MorningLine) float64{
			confirmed: func(s MorningLine) float64 { return float64(s.Confirmed) },
			backlog:   func(s MorningLine) float64 { return float64(s.Backlog) },
		}, []string{confirmed, backlog})
}

func secondOf(s SecondLine) int { return s.Second }
