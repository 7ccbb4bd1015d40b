/**
 * Chart widgets drawn with Chart.js (only the bar, line and pie pieces are registered, so the bundle carries
 * nothing else). Labels are drawn on a canvas: they are never HTML.
 *
 * @module
 */
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PieController,
  PointElement,
  Title,
  Tooltip,
} from 'chart.js';
import type { ChartWidget } from '../../../src/tool/widget';

Chart.register(
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PieController,
  PointElement,
  Title,
  Tooltip,
);

const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];

/** Draws `widget` on `canvas` (which should be in a sized container). Call `destroy()` when it goes away. */
export function drawChart(canvas: HTMLCanvasElement, widget: ChartWidget): Chart {
  const pie = widget.kind === 'pie';
  const colours = widget.data.map((_, index) => PALETTE[index % PALETTE.length] as string);
  return new Chart(canvas, {
    type: widget.kind,
    data: {
      labels: widget.data.map((datum) => datum.label),
      datasets: [
        {
          label: widget.title ?? 'value',
          data: widget.data.map((datum) => datum.value),
          backgroundColor: pie ? colours : `${PALETTE[0]}cc`,
          borderColor: pie ? '#ffffff' : PALETTE[0],
          borderWidth: pie ? 1 : 2,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: {
        legend: { display: pie },
        title: { display: widget.title !== undefined, text: widget.title ?? '' },
      },
      ...(pie ? {} : { scales: { y: { beginAtZero: true } } }),
    },
  });
}
