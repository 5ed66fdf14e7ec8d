import { render } from 'preact';
import './styles.css';

function App() {
  return <main>toolwright console</main>;
}

const root = document.getElementById('app');
if (root) render(<App />, root);
