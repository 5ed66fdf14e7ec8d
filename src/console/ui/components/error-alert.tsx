/** A failure the screen reader announces at once (role alert), or nothing when there is none. */
export function ErrorAlert({ message }: { message: string | undefined }) {
  return message ? (
    <p role="alert" class="error-box">
      {message}
    </p>
  ) : null;
}
