import { describeDstWindow, WINDOWS } from './history-dst.ts';

describeDstWindow(WINDOWS.autumn);
