import { manifest } from '../../lib/manifest';

export const GET = () => manifest('es');
